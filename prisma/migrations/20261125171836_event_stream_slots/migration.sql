-- Event streams held per API key across processes (docs/decisions.md, "Event streams").
-- CreateTable
CREATE TABLE "event_stream_slots" (
    "api_key_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "slot" INTEGER NOT NULL,
    "holder" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "event_stream_slots_pkey" PRIMARY KEY ("api_key_id","slot")
);

-- CreateIndex
CREATE INDEX "event_stream_slots_account_id_idx" ON "event_stream_slots"("account_id");

-- CreateIndex
CREATE INDEX "event_stream_slots_holder_idx" ON "event_stream_slots"("holder");

-- Slots live for a stream's lease and are renewed every heartbeat by each process: unlogged, their
-- writes skip the write-ahead log. A PostgreSQL crash empties the table, and its streams end with
-- it (they reconnect and take slots again). Prisma's schema cannot say UNLOGGED, so no later
-- `migrate diff` will undo it.
ALTER TABLE "event_stream_slots" SET UNLOGGED;

-- Every process holding streams must hear when an account's events change, by whichever process:
-- the database announces it itself, once per statement, with NOTIFY on channel "event_changes",
-- payload "<account id> <highest version written>", for the accounts that have a stream open
-- (a live slot). NOTIFY is delivered when the statement's transaction commits, never for a
-- rollback, and the same payload twice in one transaction once. Only watched accounts: every
-- NOTIFY takes a database-wide lock at commit and wakes every listening connection, which halved
-- the benchmark's anchor writes when every write notified (docs/performance.md). Prisma's schema
-- cannot describe triggers, so no later `migrate diff` will touch them.
--
-- The function body is an E'' string with \073 for each semicolon: the in-process migration runner
-- (@prisma/adapter-pg's executeScript) splits a script at every semicolon, even inside $$ quotes.
CREATE FUNCTION "notify_event_changes"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  PERFORM pg_notify(''event_changes'', "written"."account_id" || '' '' || "written"."version")
    FROM (SELECT "account_id", max("account_version") AS "version" FROM "written_events" GROUP BY "account_id") AS "written"
   WHERE EXISTS (SELECT 1 FROM "event_stream_slots" AS "slot"
                  WHERE "slot"."account_id" = "written"."account_id" AND "slot"."expires_at" > now())\073
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
