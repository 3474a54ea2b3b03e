-- The level histograms of each check-in hour and each cell (0005) as bytes rather than
-- `bin:count` text: about a third of the size (LevelHistogram.stored, docs/storage.md). Right after
-- this file the server rewrites every stored histogram into these columns, which SQL cannot
-- (SQLiteDatabase.migrator); the next file drops the text columns. NULL reads as no seconds.

ALTER TABLE checkin_hour ADD COLUMN level_histogram BLOB;
ALTER TABLE checkin_hour ADD COLUMN fast_max_histogram BLOB;

ALTER TABLE loudness ADD COLUMN level_histogram BLOB;
ALTER TABLE loudness ADD COLUMN fast_max_histogram BLOB;
