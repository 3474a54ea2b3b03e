-- HearClear schema, version 1. Never edit this file once shipped: add 0002_... instead.

CREATE TABLE device (
    id TEXT PRIMARY KEY NOT NULL,                 -- UUID, lower case
    token_hash BLOB NOT NULL UNIQUE,              -- SHA-256 of the bearer token; the token itself is never stored
    model TEXT NOT NULL,
    platform TEXT NOT NULL,
    banned INTEGER NOT NULL DEFAULT 0 CHECK (banned IN (0, 1)),
    created_at REAL NOT NULL,                     -- Unix seconds
    last_seen_at REAL NOT NULL
);

CREATE TABLE venue (
    id TEXT PRIMARY KEY NOT NULL,                 -- the client's external id, [A-Za-z0-9_-]{1,64}
    name TEXT NOT NULL,
    latitude REAL NOT NULL CHECK (latitude BETWEEN -90 AND 90),
    longitude REAL NOT NULL CHECK (longitude BETWEEN -180 AND 180),
    timezone TEXT NOT NULL,                       -- IANA name
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE INDEX venue_latitude ON venue (latitude);

CREATE TABLE checkin (
    seq INTEGER PRIMARY KEY,                      -- compact key for the many sample rows
    id TEXT NOT NULL UNIQUE,                      -- UUID chosen by the client
    venue_id TEXT NOT NULL REFERENCES venue (id),
    device_id TEXT NOT NULL REFERENCES device (id),
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
    received_at REAL NOT NULL
);
CREATE INDEX checkin_venue_home ON checkin (venue_id, home_hour, home_weekday);
CREATE INDEX checkin_device ON checkin (device_id);

CREATE TABLE sample (
    checkin_seq INTEGER NOT NULL REFERENCES checkin (seq) ON DELETE CASCADE,
    t REAL NOT NULL,
    avg REAL NOT NULL,                            -- dBFS as measured
    peak REAL NOT NULL,
    dropped INTEGER NOT NULL CHECK (dropped IN (0, 1)),
    PRIMARY KEY (checkin_seq, t)
) WITHOUT ROWID;

CREATE TABLE event (
    checkin_seq INTEGER NOT NULL REFERENCES checkin (seq) ON DELETE CASCADE,
    t REAL NOT NULL,
    peak REAL NOT NULL,
    duration_s REAL NOT NULL,
    PRIMARY KEY (checkin_seq, t)
) WITHOUT ROWID;

-- A check-in's kept samples per local weekday-hour (one to a few rows per check-in).
-- Derived from the samples when the check-in is stored; the aggregates below are sums over it.
CREATE TABLE checkin_hour (
    checkin_seq INTEGER NOT NULL REFERENCES checkin (seq) ON DELETE CASCADE,
    venue_id TEXT NOT NULL,
    weekday INTEGER NOT NULL CHECK (weekday BETWEEN 0 AND 6),   -- 0 = Monday
    hour INTEGER NOT NULL CHECK (hour BETWEEN 0 AND 23),
    samples INTEGER NOT NULL,
    energy REAL NOT NULL,                         -- sum of 10^(L/10) over those samples
    PRIMARY KEY (checkin_seq, weekday, hour)
) WITHOUT ROWID;
CREATE INDEX checkin_hour_venue ON checkin_hour (venue_id, weekday, hour);

-- The cache the loudness answer reads: usable check-ins only, per venue and local weekday-hour,
-- plus the spans that count a check-in once however many hours it covers:
-- weekday 7 = every weekday, hour 24 = every hour (so (7, 24) is the venue overall).
CREATE TABLE loudness (
    venue_id TEXT NOT NULL REFERENCES venue (id),
    weekday INTEGER NOT NULL CHECK (weekday BETWEEN 0 AND 7),
    hour INTEGER NOT NULL CHECK (hour BETWEEN 0 AND 24),
    checkins INTEGER NOT NULL,
    samples INTEGER NOT NULL,
    energy REAL NOT NULL,
    PRIMARY KEY (venue_id, weekday, hour)
) WITHOUT ROWID;
