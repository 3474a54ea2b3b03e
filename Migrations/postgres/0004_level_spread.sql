-- How the kept seconds of each check-in hour and each cell spread over levels: histograms of the
-- calibrated A levels and of the Fast maxima in 0.5 dB bins, as `bin:count` text (LevelHistogram),
-- from which L10, L50, L90 and the 90th percentile of Fast maxima are read.
-- NULL in rows stored before: when the server applies this file it derives them again from the
-- samples (as `hearclear-server rebuild` does); check-ins whose samples retention dropped stay NULL,
-- which reads as no seconds.

ALTER TABLE checkin_hour ADD COLUMN level_bins text;
ALTER TABLE checkin_hour ADD COLUMN fast_max_bins text;

ALTER TABLE loudness ADD COLUMN level_bins text;
ALTER TABLE loudness ADD COLUMN fast_max_bins text;
