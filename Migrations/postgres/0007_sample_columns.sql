-- A check-in's samples move from a row per second (`sample`) into one blob on the check-in: its
-- seconds as columns (SampleColumns, docs/storage.md). Right after this file the server encodes
-- each check-in's rows into it, which SQL cannot (PostgresMigrator); the next file drops `sample`.
-- NULL once retention dropped the samples. Stored out of line and not compressed again: the blob
-- is deflated already.
ALTER TABLE checkin ADD COLUMN sample_columns bytea;
ALTER TABLE checkin ALTER COLUMN sample_columns SET STORAGE EXTERNAL;
