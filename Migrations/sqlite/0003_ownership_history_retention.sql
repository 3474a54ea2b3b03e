-- Who may change a venue, what was changed, merged venues, and raw samples dropped by retention.

-- The device that created the venue: the only one that may change it through the API (operators
-- may change any). NULL for venues created before this migration, whose creator was not recorded,
-- and for venues whose owner deleted itself: only operators change those.
ALTER TABLE venue ADD COLUMN owner_device_id TEXT REFERENCES device (id);
CREATE INDEX venue_owner ON venue (owner_device_id);

-- Every change to a venue: who ('device:<uuid>', 'admin', or 'deleted device'), when, and the
-- venue before and after as JSON ({"name", "latitude", "longitude", "timezone", "owner"}).
-- Not a foreign key: the history of a venue merged into another stays readable.
CREATE TABLE venue_change (
    seq INTEGER PRIMARY KEY,
    venue_id TEXT NOT NULL,
    changed_at REAL NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('create', 'update', 'transfer', 'merge', 'merged_into')),
    before TEXT,                                  -- NULL when created
    after TEXT                                    -- NULL when merged into another venue
);
CREATE INDEX venue_change_venue ON venue_change (venue_id, seq);

-- A venue merged into another: its id keeps leading there (reads answer 308, check-ins land there).
CREATE TABLE venue_alias (
    id TEXT PRIMARY KEY NOT NULL,
    venue_id TEXT NOT NULL REFERENCES venue (id)
) WITHOUT ROWID;

-- When retention dropped the check-in's samples and events; its per-hour sums (checkin_hour) and
-- level stay, so the aggregates do not change.
ALTER TABLE checkin ADD COLUMN samples_pruned_at REAL;
CREATE INDEX checkin_started ON checkin (started_at);
