-- Room on each page for the next version of its rows. Every upload changes its venue's cells and
-- the outlier rule changes stored check-ins' status; PostgreSQL writes a changed row as a new
-- version, on the same page when it fits there (a heap-only tuple: no new entry in any of the
-- table's indexes, no other page written), else on another page with a new entry in every index.
-- Pages filled to the brim leave no room (docs/profiling.md, Ingest, step 29). Applies to pages
-- written from now on; VACUUM FULL of the two tables gives the pages already written that room.

ALTER TABLE loudness SET (fillfactor = 80);
ALTER TABLE checkin SET (fillfactor = 90);
