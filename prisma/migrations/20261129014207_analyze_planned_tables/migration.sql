-- Statistics for the plans that depend on them: the tables whose statements choose among several
-- indexes, or between an index and a scan, by how many rows each would read (docs/decisions.md,
-- "Statistics for the planner"). A database migrated from an earlier release has them now, not
-- when autovacuum next reaches each table; a migration that adds an index to one of them ends the
-- same way. ANALYZE reads a bounded sample of each table (300 × default_statistics_target rows),
-- whatever its size, and blocks no read or write meanwhile.
ANALYZE "events", "items", "timelines", "idempotency_keys", "rate_limit_counters", "event_stream_slots", "event_manipulations";
