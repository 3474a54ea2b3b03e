-- A check-in's samples move from a row per second (`sample`, ~85 bytes each) into one blob on the
-- check-in: its seconds as columns (SampleColumns, docs/storage.md). Right after this file the
-- server encodes each check-in's rows into it, which SQL cannot (SQLiteDatabase.migrator); the
-- next file drops `sample`. NULL once retention dropped the samples.
ALTER TABLE checkin ADD COLUMN sample_columns BLOB;
