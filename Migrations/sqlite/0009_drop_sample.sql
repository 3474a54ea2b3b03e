-- Every check-in's samples are in `checkin.sample_columns` now (0008).
DROP TABLE sample;
