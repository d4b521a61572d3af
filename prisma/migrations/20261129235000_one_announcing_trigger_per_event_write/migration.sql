-- One trigger per event write announces it, to the event streams and to the webhooks, in one query,
-- where two triggers ran three (docs/decisions.md, "One trigger announces an event write"). An
-- account with neither a stream open nor an endpoint pays for that one query: its id read off the
-- statement's rows, one probe of the stream slots and one of the endpoints. Prisma's schema cannot
-- describe triggers, so no later `migrate diff` will touch them.
--
-- The function body is an E'' string with \073 for each semicolon: Prisma's migration engine run
-- in-process splits a script at every semicolon, even inside $$ quotes.

DROP TRIGGER "events_inserted" ON "events";
DROP TRIGGER "events_updated" ON "events";
DROP TRIGGER "events_inserted_webhooks" ON "events";
DROP TRIGGER "events_updated_webhooks" ON "events";
DROP FUNCTION "notify_event_changes"();
DROP FUNCTION "record_webhooks_of_recorded_events"();
DROP FUNCTION "record_webhooks_of_updated_events"();

-- For each account the statement wrote events of:
-- - NOTIFY on channel "event_changes", payload "<account id> <highest version written>", when it has
--   a stream open (a live slot), as migration 20261125171836_event_stream_slots did: every NOTIFY
--   takes a database-wide lock at commit and wakes every listening connection, so only for watched
--   accounts (CASE calls pg_notify for those alone);
-- - its webhook messages (event.recorded for an INSERT, event.updated for an UPDATE), recorded as
--   migration 20261129201927_webhook_outbox does, when it has an enabled endpoint subscribed to the
--   type. An update announces only the events changed as a receiver sees them (the event object of
--   the listings): a statement that only stamps what the service keeps for itself (the account's
--   version, the writer's trace, the search digests) is no change to announce. PL/pgSQL plans a
--   query when it first runs it, so an INSERT's call never reads "previous_events", which only the
--   UPDATE trigger has.
CREATE FUNCTION "announce_event_writes"() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  "message_type" text := CASE TG_OP WHEN ''INSERT'' THEN ''event.recorded'' ELSE ''event.updated'' END\073
  "subscribed" boolean\073
  "notified" bigint\073
BEGIN
  SELECT coalesce(bool_or(EXISTS (SELECT 1 FROM "webhook_endpoints" AS "endpoint"
                                   WHERE "endpoint"."account_id" = "written"."account_id"
                                     AND "endpoint"."status" = ''enabled'' AND "message_type" = ANY ("endpoint"."event_types"))),
                  false),
         count(CASE WHEN EXISTS (SELECT 1 FROM "event_stream_slots" AS "slot"
                                  WHERE "slot"."account_id" = "written"."account_id" AND "slot"."expires_at" > now())
                    THEN pg_notify(''event_changes'', "written"."account_id" || '' '' || "written"."version") END)
    INTO "subscribed", "notified"
    FROM (SELECT "account_id", max("account_version") AS "version" FROM "written_events" GROUP BY "account_id") AS "written"\073
  IF NOT "subscribed" THEN
    RETURN NULL\073
  END IF\073
  IF TG_OP = ''INSERT'' THEN
    PERFORM "record_webhook_messages"("message_type", (SELECT jsonb_agg(to_jsonb("written")) FROM "written_events" AS "written"), false)\073
  ELSE
    PERFORM "record_webhook_messages"("message_type", (
      SELECT jsonb_agg(to_jsonb("written"))
        FROM "written_events" AS "written"
        JOIN "previous_events" AS "previous" ON "previous"."account_id" = "written"."account_id" AND "previous"."id" = "written"."id"
       WHERE ("written"."timeline_id", "written"."kind", "written"."time", "written"."original_time", "written"."description",
              "written"."location", "written"."subject_id", "written"."revision")
             IS DISTINCT FROM
             ("previous"."timeline_id", "previous"."kind", "previous"."time", "previous"."original_time", "previous"."description",
              "previous"."location", "previous"."subject_id", "previous"."revision")), false)\073
  END IF\073
  RETURN NULL\073
END
';

CREATE TRIGGER "events_inserted"
  AFTER INSERT ON "events"
  REFERENCING NEW TABLE AS "written_events"
  FOR EACH STATEMENT
  EXECUTE FUNCTION "announce_event_writes"();

CREATE TRIGGER "events_updated"
  AFTER UPDATE ON "events"
  REFERENCING OLD TABLE AS "previous_events" NEW TABLE AS "written_events"
  FOR EACH STATEMENT
  EXECUTE FUNCTION "announce_event_writes"();
