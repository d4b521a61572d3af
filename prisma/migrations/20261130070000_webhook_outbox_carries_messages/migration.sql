-- A write records each webhook message as one row of the outbox, carrying what the message's row
-- will hold (its id, type and subject); the relay makes the message's row as it gives it its job
-- (docs/webhooks.md, "Recording"; docs/decisions.md, "The outbox carries the message"). A write of
-- an account with an endpoint adds that one row, with one index, where it added a message's row
-- (four indexes) and an outbox row beside it; the events' trigger writes it itself, without a
-- function call and a JSON array between them.
--
-- The function bodies are E'' strings with \073 for each semicolon: Prisma's migration engine run
-- in-process splits a script at every semicolon, even inside $$ quotes.

ALTER TABLE "webhook_outbox" ADD COLUMN "event_type" TEXT, ADD COLUMN "subject" JSONB;

-- The messages waiting when this migration runs leave their rows for their outbox rows, which the
-- relay turns back into the same rows: none has an attempt or a job yet.
UPDATE "webhook_outbox" AS "waiting"
   SET "event_type" = "message"."event_type", "subject" = "message"."subject"
  FROM "webhook_messages" AS "message"
 WHERE "message"."account_id" = "waiting"."account_id" AND "message"."id" = "waiting"."message_id";
DELETE FROM "webhook_outbox" WHERE "subject" IS NULL;
DELETE FROM "webhook_messages" AS "message"
 USING "webhook_outbox" AS "waiting"
 WHERE "message"."account_id" = "waiting"."account_id" AND "message"."id" = "waiting"."message_id";

ALTER TABLE "webhook_outbox" ALTER COLUMN "event_type" SET NOT NULL, ALTER COLUMN "subject" SET NOT NULL;

-- As in migration 20261129201927_webhook_outbox, with the message in its outbox row. A message
-- recorded once per subject (a window's closing) is not recorded again while its row or its outbox
-- row exists; two statements racing both record it, and the relay makes one row and one job of it.
CREATE OR REPLACE FUNCTION "record_webhook_messages"("message_type" text, "subjects" jsonb, "once_per_subject" boolean)
  RETURNS integer LANGUAGE plpgsql AS E'
DECLARE
  "owners" text[]\073
  "recorded" integer\073
BEGIN
  -- The subjects'' accounts first: their endpoints are then one scan of the primary key, whatever
  -- the planner guesses of how many subjects a JSON array holds.
  SELECT array_agg(DISTINCT "value" ->> ''account_id'') INTO "owners" FROM jsonb_array_elements("subjects")\073
  WITH "endpoint" AS MATERIALIZED (
    SELECT "account_id", "id" FROM "webhook_endpoints"
     WHERE "account_id" = ANY ("owners") AND "status" = ''enabled'' AND "message_type" = ANY ("event_types")
  ), "message" AS (
    SELECT "endpoint"."account_id", "endpoint"."id" AS "endpoint_id", "subject"."value" AS "subject",
           ''msg_'' || CASE WHEN "once_per_subject"
                            THEN md5("message_type" || '' '' || "endpoint"."id" || '' '' || ("subject"."value" ->> ''id''))
                            ELSE replace(gen_random_uuid()::text, ''-'', '''') END AS "id"
      FROM jsonb_array_elements("subjects") AS "subject"
      JOIN "endpoint" ON "endpoint"."account_id" = "subject"."value" ->> ''account_id''
  )
  INSERT INTO "webhook_outbox" ("account_id", "endpoint_id", "created_at", "message_id", "event_type", "subject")
  SELECT "message"."account_id", "message"."endpoint_id", now(), "message"."id", "message_type", "message"."subject"
    FROM "message"
   WHERE NOT ("once_per_subject" AND (
           EXISTS (SELECT 1 FROM "webhook_messages" AS "made"
                    WHERE "made"."account_id" = "message"."account_id" AND "made"."id" = "message"."id")
           OR EXISTS (SELECT 1 FROM "webhook_outbox" AS "waiting"
                       WHERE "waiting"."account_id" = "message"."account_id"
                         AND "waiting"."endpoint_id" = "message"."endpoint_id" AND "waiting"."message_id" = "message"."id")))\073
  GET DIAGNOSTICS "recorded" = ROW_COUNT\073
  IF "recorded" > 0 THEN
    RAISE NOTICE USING MESSAGE = ''webhook messages recorded'',
      DETAIL = json_build_object(''type'', "message_type", ''count'', "recorded")::text\073
  END IF\073
  RETURN "recorded"\073
END
';

-- As in migration 20261129235000_one_announcing_trigger_per_event_write, with the messages written
-- into the outbox by the trigger's own statement: each written (or changed) event's row joined to
-- its account's enabled endpoints subscribed to the type, one probe of their key per row.
CREATE OR REPLACE FUNCTION "announce_event_writes"() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  "message_type" text := CASE TG_OP WHEN ''INSERT'' THEN ''event.recorded'' ELSE ''event.updated'' END\073
  "subscribed" boolean\073
  "notified" bigint\073
  "recorded" integer\073
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
    INSERT INTO "webhook_outbox" ("account_id", "endpoint_id", "created_at", "message_id", "event_type", "subject")
    SELECT "endpoint"."account_id", "endpoint"."id", now(), ''msg_'' || replace(gen_random_uuid()::text, ''-'', ''''),
           "message_type", to_jsonb("written")
      FROM "written_events" AS "written"
      JOIN "webhook_endpoints" AS "endpoint" ON "endpoint"."account_id" = "written"."account_id"
     WHERE "endpoint"."status" = ''enabled'' AND "message_type" = ANY ("endpoint"."event_types")\073
  ELSE
    INSERT INTO "webhook_outbox" ("account_id", "endpoint_id", "created_at", "message_id", "event_type", "subject")
    SELECT "endpoint"."account_id", "endpoint"."id", now(), ''msg_'' || replace(gen_random_uuid()::text, ''-'', ''''),
           "message_type", to_jsonb("written")
      FROM "written_events" AS "written"
      JOIN "previous_events" AS "previous" ON "previous"."account_id" = "written"."account_id" AND "previous"."id" = "written"."id"
      JOIN "webhook_endpoints" AS "endpoint" ON "endpoint"."account_id" = "written"."account_id"
     WHERE "endpoint"."status" = ''enabled'' AND "message_type" = ANY ("endpoint"."event_types")
       AND ("written"."timeline_id", "written"."kind", "written"."time", "written"."original_time", "written"."description",
            "written"."location", "written"."subject_id", "written"."revision")
           IS DISTINCT FROM
           ("previous"."timeline_id", "previous"."kind", "previous"."time", "previous"."original_time", "previous"."description",
            "previous"."location", "previous"."subject_id", "previous"."revision")\073
  END IF\073
  GET DIAGNOSTICS "recorded" = ROW_COUNT\073
  IF "recorded" > 0 THEN
    RAISE NOTICE USING MESSAGE = ''webhook messages recorded'',
      DETAIL = json_build_object(''type'', "message_type", ''count'', "recorded")::text\073
  END IF\073
  RETURN NULL\073
END
';

-- As in migration 20261129201927_webhook_outbox, and each message relayed gets its row here, from
-- its outbox row, with its job. A message recorded twice by racing statements (once per subject)
-- gets one row and one job; the relay answers how many jobs it made.
CREATE OR REPLACE FUNCTION "relay_webhook_messages"("per_endpoint" integer, "at_most" integer)
  RETURNS integer LANGUAGE plpgsql AS E'
DECLARE
  "relayed" integer\073
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext(''relay_webhook_messages'')) THEN
    RETURN 0\073
  END IF\073
  WITH RECURSIVE "waiting_endpoint" AS (
    (SELECT "account_id", "endpoint_id" FROM "webhook_outbox" ORDER BY "account_id", "endpoint_id" LIMIT 1)
    UNION ALL
    SELECT "next"."account_id", "next"."endpoint_id"
      FROM "waiting_endpoint" AS "previous"
      CROSS JOIN LATERAL (
        SELECT "waiting"."account_id", "waiting"."endpoint_id" FROM "webhook_outbox" AS "waiting"
         WHERE ("waiting"."account_id", "waiting"."endpoint_id") > ("previous"."account_id", "previous"."endpoint_id")
         ORDER BY "waiting"."account_id", "waiting"."endpoint_id" LIMIT 1) AS "next"
  ), "due_job" AS (
    SELECT "group_id", count(*)::integer AS "due" FROM "pgboss"."job"
     WHERE "name" = ''webhook-delivery'' AND "state" = ''created'' AND "start_after" <= now()
     GROUP BY "group_id"
  ), "picked" AS (
    SELECT "waiting"."account_id", "waiting"."endpoint_id", "waiting"."created_at", "waiting"."message_id"
      FROM "waiting_endpoint" AS "endpoint"
      LEFT JOIN "due_job" ON "due_job"."group_id" = "endpoint"."endpoint_id"
      CROSS JOIN LATERAL (
        SELECT * FROM "webhook_outbox" AS "waiting"
         WHERE "waiting"."account_id" = "endpoint"."account_id" AND "waiting"."endpoint_id" = "endpoint"."endpoint_id"
         ORDER BY "waiting"."created_at", "waiting"."message_id"
         LIMIT greatest(0, "per_endpoint" - coalesce("due_job"."due", 0))) AS "waiting"
     LIMIT "at_most"
  ), "relayed_message" AS (
    DELETE FROM "webhook_outbox" AS "waiting" USING "picked"
     WHERE ("waiting"."account_id", "waiting"."endpoint_id", "waiting"."created_at", "waiting"."message_id")
         = ("picked"."account_id", "picked"."endpoint_id", "picked"."created_at", "picked"."message_id")
    RETURNING "waiting".*
  ), "made" AS (
    INSERT INTO "webhook_messages" ("account_id", "id", "endpoint_id", "event_type", "subject", "created_at", "state")
    SELECT "account_id", "message_id", "endpoint_id", "event_type", "subject", "created_at", ''pending''
      FROM "relayed_message"
    ON CONFLICT DO NOTHING
    RETURNING "account_id", "id", "endpoint_id"
  )
  SELECT count("enqueue_webhook_delivery"("account_id", "id", "endpoint_id", now()))
    INTO "relayed" FROM "made"\073
  RETURN "relayed"\073
END
';

-- As in migration 20261129201927_webhook_outbox, and a disabled endpoint's messages still in the
-- outbox get their rows, failed, as the ones already relayed are.
CREATE OR REPLACE FUNCTION "fail_messages_of_disabled_endpoints"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  UPDATE "webhook_messages" AS "message"
     SET "state" = ''failed'', "next_attempt_at" = NULL
    FROM "changed_endpoints" AS "changed"
    JOIN "previous_endpoints" AS "previous"
      ON "previous"."account_id" = "changed"."account_id" AND "previous"."id" = "changed"."id"
   WHERE "changed"."status" = ''disabled'' AND "previous"."status" = ''enabled''
     AND "message"."account_id" = "changed"."account_id" AND "message"."endpoint_id" = "changed"."id"
     AND "message"."state" = ''pending''\073
  WITH "dropped" AS (
    DELETE FROM "webhook_outbox" AS "waiting"
     USING "changed_endpoints" AS "changed"
      JOIN "previous_endpoints" AS "previous"
        ON "previous"."account_id" = "changed"."account_id" AND "previous"."id" = "changed"."id"
     WHERE "changed"."status" = ''disabled'' AND "previous"."status" = ''enabled''
       AND "waiting"."account_id" = "changed"."account_id" AND "waiting"."endpoint_id" = "changed"."id"
    RETURNING "waiting".*
  )
  INSERT INTO "webhook_messages" ("account_id", "id", "endpoint_id", "event_type", "subject", "created_at", "state")
  SELECT "account_id", "message_id", "endpoint_id", "event_type", "subject", "created_at", ''failed'' FROM "dropped"
  ON CONFLICT DO NOTHING\073
  RETURN NULL\073
END
';

-- When the oldest message not yet delivered was recorded: the oldest pending message's row, by its
-- partial index, or the oldest waiting in the outbox, each endpoint's first row in the outbox's key
-- found by a skip over it (one probe per endpoint with messages waiting).
CREATE FUNCTION "oldest_undelivered_message_at"() RETURNS timestamptz LANGUAGE sql STABLE AS E'
  WITH RECURSIVE "waiting_endpoint" AS (
    (SELECT "account_id", "endpoint_id", "created_at" FROM "webhook_outbox"
      ORDER BY "account_id", "endpoint_id", "created_at" LIMIT 1)
    UNION ALL
    SELECT "next".* FROM "waiting_endpoint" AS "previous"
     CROSS JOIN LATERAL (
       SELECT "waiting"."account_id", "waiting"."endpoint_id", "waiting"."created_at" FROM "webhook_outbox" AS "waiting"
        WHERE ("waiting"."account_id", "waiting"."endpoint_id") > ("previous"."account_id", "previous"."endpoint_id")
        ORDER BY "waiting"."account_id", "waiting"."endpoint_id", "waiting"."created_at" LIMIT 1) AS "next"
  )
  SELECT least((SELECT min("created_at") FROM "webhook_messages" WHERE "state" = ''pending''),
               (SELECT min("created_at") FROM "waiting_endpoint"))
';
