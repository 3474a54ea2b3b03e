-- The write limits' token buckets, shared by every server of a deployment (see
-- PostgresRateBuckets). They replace 0001's per-minute counters, which were never used: a bucket
-- allows the same bursts as the one-server limiter, a fixed minute window allowed twice the rate
-- across a minute's edge.
-- UNLOGGED: a bucket lives a minute; after a crash PostgreSQL empties the table, which only
-- forgives a minute of writes, and no write to it costs WAL.
DROP TABLE rate_window;

CREATE UNLOGGED TABLE rate_bucket (
    key text PRIMARY KEY,                         -- 'device:<uuid>' or 'address:<ip>'
    tokens double precision NOT NULL,
    updated_at timestamptz NOT NULL               -- PostgreSQL's clock, so servers' clocks need not agree
);
CREATE INDEX rate_bucket_updated ON rate_bucket (updated_at);
