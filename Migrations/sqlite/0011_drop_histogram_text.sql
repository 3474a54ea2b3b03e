-- Every histogram is in the bytes columns now (0010).
ALTER TABLE checkin_hour DROP COLUMN level_bins;
ALTER TABLE checkin_hour DROP COLUMN fast_max_bins;

ALTER TABLE loudness DROP COLUMN level_bins;
ALTER TABLE loudness DROP COLUMN fast_max_bins;
