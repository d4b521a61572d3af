-- Rate-limit counters live for a second or a minute and are written on every request: unlogged,
-- their writes skip the write-ahead log and its flush at commit. A PostgreSQL crash empties the
-- table, which only restarts the current windows at zero (docs/performance.md).
-- Prisma's schema cannot say UNLOGGED, so no later `migrate diff` will undo it.
ALTER TABLE "rate_limit_counters" SET UNLOGGED;
