-- HearClear schema for PostgreSQL, version 1: the SQLite schema of Migrations/sqlite 0001–0003
-- in PostgreSQL's own types (uuid, timestamptz, boolean, bytea). Never edit this file once
-- shipped: add 0002_... instead.

CREATE TABLE device (
    id uuid PRIMARY KEY,
    token_hash bytea NOT NULL UNIQUE,             -- SHA-256 of the bearer token; the token itself is never stored
    model text NOT NULL,
    platform text NOT NULL,
    banned boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL
);

CREATE TABLE venue (
    id text PRIMARY KEY,                          -- the client's external id, [A-Za-z0-9_-]{1,64}
    name text NOT NULL,
    latitude double precision NOT NULL CHECK (latitude BETWEEN -90 AND 90),
    longitude double precision NOT NULL CHECK (longitude BETWEEN -180 AND 180),
    timezone text NOT NULL,                       -- IANA name
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    -- The device that created it, the only one that may change it through the API; NULL: only operators.
    owner_device_id uuid REFERENCES device (id)
);
CREATE INDEX venue_latitude ON venue (latitude);
CREATE INDEX venue_owner ON venue (owner_device_id);

CREATE TABLE checkin (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,  -- compact key for the many sample rows
    id uuid NOT NULL UNIQUE,                      -- chosen by the client
    venue_id text NOT NULL REFERENCES venue (id),
    device_id uuid NOT NULL REFERENCES device (id),
    content_hash bytea NOT NULL,                  -- SHA-256 of the canonical upload: tells a retry from a conflict
    started_at timestamptz NOT NULL,
    interval_s double precision NOT NULL,
    weighting text NOT NULL CHECK (weighting IN ('A', 'Z')),
    calibration_db double precision NOT NULL,     -- the offset actually applied
    calibration_source text NOT NULL CHECK (calibration_source IN ('checkin', 'default')),
    samples integer NOT NULL,
    dropped_samples integer NOT NULL,
    level_db double precision,                    -- Leq of the kept samples, calibrated
    home_weekday smallint NOT NULL,               -- the local weekday-hour holding most kept samples:
    home_hour smallint NOT NULL,                  -- where the outlier rule compares this check-in
    status text NOT NULL CHECK (status IN ('accepted', 'too_short', 'outlier')),
    received_at timestamptz NOT NULL,
    marked_outlier boolean NOT NULL DEFAULT false, -- an operator's mark: an outlier whatever the rule says
    samples_pruned_at timestamptz                 -- when retention dropped its samples and events
);
CREATE INDEX checkin_venue_home ON checkin (venue_id, home_hour, home_weekday);
CREATE INDEX checkin_device ON checkin (device_id);
CREATE INDEX checkin_received ON checkin (received_at);
CREATE INDEX checkin_venue_received ON checkin (venue_id, received_at);
CREATE INDEX checkin_started ON checkin (started_at);

CREATE TABLE sample (
    checkin_seq bigint NOT NULL REFERENCES checkin (seq) ON DELETE CASCADE,
    t double precision NOT NULL,
    avg double precision NOT NULL,                -- dBFS as measured
    peak double precision NOT NULL,
    dropped boolean NOT NULL,
    PRIMARY KEY (checkin_seq, t)
);

CREATE TABLE event (
    checkin_seq bigint NOT NULL REFERENCES checkin (seq) ON DELETE CASCADE,
    t double precision NOT NULL,
    peak double precision NOT NULL,
    duration_s double precision NOT NULL,
    PRIMARY KEY (checkin_seq, t)
);

-- A check-in's kept samples per local weekday-hour; the cells below are sums over it.
CREATE TABLE checkin_hour (
    checkin_seq bigint NOT NULL REFERENCES checkin (seq) ON DELETE CASCADE,
    venue_id text NOT NULL,
    weekday smallint NOT NULL CHECK (weekday BETWEEN 0 AND 6),  -- 0 = Monday
    hour smallint NOT NULL CHECK (hour BETWEEN 0 AND 23),
    samples integer NOT NULL,
    energy double precision NOT NULL,             -- sum of 10^(L/10) over those samples
    PRIMARY KEY (checkin_seq, weekday, hour)
);
CREATE INDEX checkin_hour_venue ON checkin_hour (venue_id, weekday, hour);

-- The cells loudness answers read: weekday 7 = every weekday, hour 24 = every hour.
CREATE TABLE loudness (
    venue_id text NOT NULL REFERENCES venue (id),
    weekday smallint NOT NULL CHECK (weekday BETWEEN 0 AND 7),
    hour smallint NOT NULL CHECK (hour BETWEEN 0 AND 24),
    checkins integer NOT NULL,
    samples bigint NOT NULL,
    energy double precision NOT NULL,
    PRIMARY KEY (venue_id, weekday, hour)
);

-- dB added to dBFS for check-ins without their own calibration_db, by device model.
CREATE TABLE calibration (
    model text PRIMARY KEY,
    offset_db double precision NOT NULL CHECK (offset_db BETWEEN 0 AND 200),
    updated_at timestamptz NOT NULL
);

-- Every change to a venue (see the SQLite schema 0003); not a foreign key, so the history of a
-- venue merged into another stays readable.
CREATE TABLE venue_change (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    venue_id text NOT NULL,
    changed_at timestamptz NOT NULL,
    actor text NOT NULL,
    action text NOT NULL CHECK (action IN ('create', 'update', 'transfer', 'merge', 'merged_into')),
    before text,
    after text
);
CREATE INDEX venue_change_venue ON venue_change (venue_id, seq);

CREATE TABLE venue_alias (
    id text PRIMARY KEY,
    venue_id text NOT NULL REFERENCES venue (id)
);

-- Write counts per device or address and minute, shared by every server of a deployment.
CREATE TABLE rate_window (
    key text NOT NULL,
    minute bigint NOT NULL,                       -- Unix minutes
    count integer NOT NULL,
    PRIMARY KEY (key, minute)
);
