-- Every check-in's samples are in `checkin.sample_columns` now (0007).
DROP TABLE sample;
