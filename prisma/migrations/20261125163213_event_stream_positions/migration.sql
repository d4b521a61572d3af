-- Event streams (GET /v1/monitor-events as text/event-stream; docs/decisions.md, "Event streams").
--
-- Each event records the account's version (its traveller's) whose unit of work last wrote it. An
-- account's units commit one after another, each moving that version on, so "the account's events
-- written after version v" is a position a stream can resume from, in any process. Events written
-- before this migration stand at 0: before every position a stream can hold.
-- AlterTable
ALTER TABLE "events" ADD COLUMN     "account_version" BIGINT NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "events_account_id_account_version_id_idx" ON "events"("account_id", "account_version", "id");

-- The same of each manipulation, so a stream hears of an event moved out of its range by any
-- manipulation after the stream's position, not only the last. Found by the unique index on
-- (account_id, event_id, revision).
-- AlterTable
ALTER TABLE "event_manipulations" ADD COLUMN     "account_version" BIGINT NOT NULL DEFAULT 0;
