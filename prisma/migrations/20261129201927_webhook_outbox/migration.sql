-- A message recorded by a write waits in "webhook_outbox" for its delivery job, rather than being
-- given one by the write itself (docs/webhooks.md, "Recording"; docs/decisions.md, "A relay between
-- the writes and the delivery queue"). The relay, run by every process, moves the waiting messages
-- into pg-boss's job table a batch at a time, at most a few due jobs per endpoint: a write pays for
-- a small row and not for a job's, and pg-boss's fetch, which walks every due job of an endpoint at
-- its concurrency, never walks more than those few.
--
-- The function bodies are E'' strings with \073 for each semicolon: Prisma's migration engine run
-- in-process splits a script at every semicolon, even inside $$ quotes.

-- CreateTable
CREATE TABLE "webhook_outbox" (
    "account_id" TEXT NOT NULL,
    "endpoint_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "message_id" TEXT NOT NULL,

    CONSTRAINT "webhook_outbox_pkey" PRIMARY KEY ("account_id","endpoint_id","created_at","message_id")
);

-- AddForeignKey
ALTER TABLE "webhook_outbox" ADD CONSTRAINT "webhook_outbox_account_id_endpoint_id_fkey" FOREIGN KEY ("account_id", "endpoint_id") REFERENCES "webhook_endpoints"("account_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- As in migration 20261129082908_webhook_recording, with each message's row in the outbox in place
-- of its job.
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
    INSERT INTO "webhook_messages" ("account_id", "id", "endpoint_id", "event_type", "subject", "created_at", "state")
    SELECT "endpoint"."account_id",
           ''msg_'' || CASE WHEN "once_per_subject"
                            THEN md5("message_type" || '' '' || "endpoint"."id" || '' '' || ("subject"."value" ->> ''id''))
                            ELSE replace(gen_random_uuid()::text, ''-'', '''') END,
           "endpoint"."id", "message_type", "subject"."value", now(), ''pending''
      FROM jsonb_array_elements("subjects") AS "subject"
      JOIN "endpoint" ON "endpoint"."account_id" = "subject"."value" ->> ''account_id''
    ON CONFLICT DO NOTHING
    RETURNING "account_id", "id", "endpoint_id", "created_at"
  )
  INSERT INTO "webhook_outbox" ("account_id", "endpoint_id", "created_at", "message_id")
  SELECT "account_id", "endpoint_id", "created_at", "id" FROM "message"\073
  GET DIAGNOSTICS "recorded" = ROW_COUNT\073
  IF "recorded" > 0 THEN
    RAISE NOTICE USING MESSAGE = ''webhook messages recorded'',
      DETAIL = json_build_object(''type'', "message_type", ''count'', "recorded")::text\073
  END IF\073
  RETURN "recorded"\073
END
';

-- Moves messages waiting in the outbox to the delivery queue, each endpoint's oldest first, until
-- it has "per_endpoint" jobs due and not yet taken, and "at_most" in all: it answers how many.
-- One relay at a time in the instance (a transaction's advisory lock), so that the bound holds:
-- another, finding it taken, answers 0 and leaves the messages to the one at work. An endpoint with
-- messages waiting is found by a skip over the outbox's key, one probe per such endpoint.
CREATE FUNCTION "relay_webhook_messages"("per_endpoint" integer, "at_most" integer)
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
    RETURNING "waiting"."account_id", "waiting"."message_id", "waiting"."endpoint_id"
  )
  SELECT count("enqueue_webhook_delivery"("account_id", "message_id", "endpoint_id", now()))
    INTO "relayed" FROM "relayed_message"\073
  RETURN "relayed"\073
END
';

-- As in migration 20261129104609_webhook_disabled_endpoints, and the disabled endpoints' messages
-- still waiting for a job leave the outbox: failed, they have nothing left to deliver.
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
  DELETE FROM "webhook_outbox" AS "waiting"
   USING "changed_endpoints" AS "changed"
    JOIN "previous_endpoints" AS "previous"
      ON "previous"."account_id" = "changed"."account_id" AND "previous"."id" = "changed"."id"
   WHERE "changed"."status" = ''disabled'' AND "previous"."status" = ''enabled''
     AND "waiting"."account_id" = "changed"."account_id" AND "waiting"."endpoint_id" = "changed"."id"\073
  RETURN NULL\073
END
';
