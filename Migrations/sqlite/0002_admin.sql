-- What the admin pages need: manual outlier marks, per-model calibration, recent-first listings.

-- An operator's mark: 1 makes the check-in an outlier whatever the automatic rule says.
ALTER TABLE checkin ADD COLUMN marked_outlier INTEGER NOT NULL DEFAULT 0 CHECK (marked_outlier IN (0, 1));
CREATE INDEX checkin_received ON checkin (received_at);
CREATE INDEX checkin_venue_received ON checkin (venue_id, received_at);

-- dB added to dBFS for check-ins without their own calibration_db, by device model.
-- Check-ins calibrated this way keep calibration_source 'default' (chosen by the server).
CREATE TABLE calibration (
    model TEXT PRIMARY KEY NOT NULL,
    offset_db REAL NOT NULL CHECK (offset_db BETWEEN 0 AND 200),
    updated_at REAL NOT NULL
);
