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

-- Every process holding streams must hear when an account's events change, by whichever process:
-- the database announces it itself, once per statement, with NOTIFY on channel "event_changes",
-- payload "<account id> <highest version written>". NOTIFY is delivered when the statement's
-- transaction commits, never for a rollback, and the same payload twice in one transaction once.
-- Prisma's schema cannot describe triggers, so no later `migrate diff` will touch them.
--
-- The function body is an E'' string with \073 for each semicolon: the in-process migration runner
-- (@prisma/adapter-pg's executeScript) splits a script at every semicolon, even inside $$ quotes.
CREATE FUNCTION "notify_event_changes"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  PERFORM pg_notify(''event_changes'', "account_id" || '' '' || max("account_version"))
    FROM "written_events" GROUP BY "account_id"\073
  RETURN NULL\073
END
';

CREATE TRIGGER "events_inserted"
  AFTER INSERT ON "events"
  REFERENCING NEW TABLE AS "written_events"
  FOR EACH STATEMENT
  EXECUTE FUNCTION "notify_event_changes"();

CREATE TRIGGER "events_updated"
  AFTER UPDATE ON "events"
  REFERENCING NEW TABLE AS "written_events"
  FOR EACH STATEMENT
  EXECUTE FUNCTION "notify_event_changes"();
