-- The status rule's candidates (SQLiteRepository.statusCandidatesSQL: a venue's check-ins, all or of
-- one home hour) read from this index alone. A check-in's row holds its seconds' blob, so a venue's
-- rows lie a page or more apart across the file, and reading one row per candidate was most of the
-- one writer's reads from a file of 10⁵ check-ins (docs/profiling.md, Ingest, steps 33 and 46). The
-- index keeps the key it had, so it serves what it served, and every column the rule reads after
-- it: the ones an upload never changes first, the status last.
DROP INDEX checkin_venue_home;
CREATE INDEX checkin_venue_home ON checkin (venue_id, home_hour, home_weekday, device_seq, samples, dropped_samples, level_db, marked_outlier, status);
