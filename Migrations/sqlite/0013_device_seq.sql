-- A check-in names its device by the device's row number rather than its 36-character id: at 10⁶
-- stored check-ins the id took 36 bytes of every check-in's row and 52 MB in `checkin_device`,
-- 0.29 of the 10.14 bytes a stored second (docs/storage.md). The device gets an explicit
-- INTEGER PRIMARY KEY, as VACUUM may renumber an implicit rowid. SQLite cannot change a column
-- that a foreign key names, so both tables are built again and their rows copied; foreign keys
-- are off while a migration runs and checked before it commits.

CREATE TABLE device_new (
    seq INTEGER PRIMARY KEY,                      -- compact key for the check-ins
    id TEXT NOT NULL UNIQUE,                      -- UUID, lower case
    token_hash BLOB NOT NULL UNIQUE,              -- SHA-256 of the bearer token; the token itself is never stored
    model TEXT NOT NULL,
    platform TEXT NOT NULL,
    banned INTEGER NOT NULL DEFAULT 0 CHECK (banned IN (0, 1)),
    created_at REAL NOT NULL,                     -- Unix seconds
    last_seen_at REAL NOT NULL
);
INSERT INTO device_new (id, token_hash, model, platform, banned, created_at, last_seen_at)
    SELECT id, token_hash, model, platform, banned, created_at, last_seen_at FROM device ORDER BY created_at, id;
DROP TABLE device;
ALTER TABLE device_new RENAME TO device;

CREATE TABLE checkin_new (
    seq INTEGER PRIMARY KEY,                      -- compact key for the events and hours
    id TEXT NOT NULL UNIQUE,                      -- UUID chosen by the client
    venue_id TEXT NOT NULL REFERENCES venue (id),
    device_seq INTEGER NOT NULL REFERENCES device (seq),
    content_hash BLOB NOT NULL,                   -- SHA-256 of the canonical upload: tells a retry from a conflict
    started_at REAL NOT NULL,
    interval_s REAL NOT NULL,
    weighting TEXT NOT NULL,
    calibration_db REAL NOT NULL,                 -- the offset actually applied
    calibration_source TEXT NOT NULL CHECK (calibration_source IN ('checkin', 'default')),
    samples INTEGER NOT NULL,
    dropped_samples INTEGER NOT NULL,
    level_db REAL,                                -- Leq of the kept samples, calibrated
    home_weekday INTEGER NOT NULL,                -- the local weekday-hour holding most kept samples:
    home_hour INTEGER NOT NULL,                   -- where the outlier rule compares this check-in
    status TEXT NOT NULL CHECK (status IN ('accepted', 'too_short', 'outlier')),
    received_at REAL NOT NULL,
    marked_outlier INTEGER NOT NULL DEFAULT 0 CHECK (marked_outlier IN (0, 1)),
    samples_pruned_at REAL,                       -- when retention dropped its samples
    sample_columns BLOB                           -- its samples (SampleColumns); NULL once pruned
);
INSERT INTO checkin_new
    SELECT c.seq, c.id, c.venue_id, d.seq, c.content_hash, c.started_at, c.interval_s, c.weighting, c.calibration_db,
           c.calibration_source, c.samples, c.dropped_samples, c.level_db, c.home_weekday, c.home_hour, c.status,
           c.received_at, c.marked_outlier, c.samples_pruned_at, c.sample_columns
    FROM checkin c JOIN device d ON d.id = c.device_id
    ORDER BY c.seq;
DROP TABLE checkin;
ALTER TABLE checkin_new RENAME TO checkin;
CREATE INDEX checkin_venue_home ON checkin (venue_id, home_hour, home_weekday);
CREATE INDEX checkin_device ON checkin (device_seq);
CREATE INDEX checkin_received ON checkin (received_at);
CREATE INDEX checkin_venue_received ON checkin (venue_id, received_at);
CREATE INDEX checkin_started ON checkin (started_at);
