-- Webhook messages recorded by the statement that makes the change they are about, with the job that
-- delivers each (docs/webhooks.md, "Recording"). Prisma's schema cannot describe functions or
-- triggers, so no later `migrate diff` will touch them.
--
-- The jobs are rows of pg-boss's own table, in the schema "pgboss" that the service's job queue
-- installs at start, before it serves (src/infrastructure/job-queue/). They are made as pg-boss's
-- send() makes them: the queue's policy and its retry, expiry and retention settings copied from
-- its row in "pgboss"."queue". A queue that is not installed fails the write that would need it,
-- rather than leave a message without its job.
--
-- The function bodies are E'' strings with \073 for each semicolon: Prisma's migration engine run
-- in-process (@prisma/adapter-pg's executeScript, scripts/migrations/) splits a script at every
-- semicolon, even inside $$ quotes.

-- One attempt to deliver a message, due at "due": a job of the queue "webhook-delivery", in the
-- group of its endpoint (at most 4 of an endpoint's jobs run at once, across processes). For the
-- triggers below, and for any statement that schedules an attempt: it answers the job's id.
CREATE FUNCTION "enqueue_webhook_delivery"("for_account" text, "message" text, "endpoint" text, "due" timestamptz)
  RETURNS uuid LANGUAGE plpgsql AS E'
DECLARE
  "settings" record\073
  "job_id" uuid\073
BEGIN
  SELECT * INTO "settings" FROM "pgboss"."queue" WHERE "name" = ''webhook-delivery''\073
  IF NOT FOUND THEN
    RAISE EXCEPTION ''the job queue webhook-delivery is not installed (the service installs it at start)''\073
  END IF\073
  INSERT INTO "pgboss"."job" ("name", "data", "group_id", "start_after", "policy", "retry_limit", "retry_delay",
                              "retry_backoff", "retry_delay_max", "expire_seconds", "deletion_seconds",
                              "keep_until", "dead_letter", "heartbeat_seconds")
  VALUES (''webhook-delivery'', jsonb_build_object(''accountId'', "for_account", ''messageId'', "message"),
          "endpoint", "due", "settings"."policy", "settings"."retry_limit", "settings"."retry_delay",
          "settings"."retry_backoff", "settings"."retry_delay_max", "settings"."expire_seconds",
          "settings"."deletion_seconds", "due" + "settings"."retention_seconds" * interval ''1 second'',
          "settings"."dead_letter", "settings"."heartbeat_seconds")
  RETURNING "id" INTO "job_id"\073
  RETURN "job_id"\073
END
';

-- Whether a timeline's travel window closed on it, checked when "due" (a second after the window's
-- end): a job of the queue "webhook-window-check". That queue's policy (short) keeps one waiting job
-- per timeline: asked for again (another endpoint subscribed meanwhile), it is not made twice.
CREATE FUNCTION "enqueue_window_check"("for_account" text, "timeline" text, "due" timestamptz)
  RETURNS void LANGUAGE plpgsql AS E'
DECLARE
  "settings" record\073
BEGIN
  SELECT * INTO "settings" FROM "pgboss"."queue" WHERE "name" = ''webhook-window-check''\073
  IF NOT FOUND THEN
    RAISE EXCEPTION ''the job queue webhook-window-check is not installed (the service installs it at start)''\073
  END IF\073
  INSERT INTO "pgboss"."job" ("name", "data", "singleton_key", "start_after", "policy", "retry_limit",
                              "retry_delay", "retry_backoff", "retry_delay_max", "expire_seconds",
                              "deletion_seconds", "keep_until", "dead_letter", "heartbeat_seconds")
  VALUES (''webhook-window-check'', jsonb_build_object(''accountId'', "for_account", ''timelineId'', "timeline"),
          "for_account" || ''/'' || "timeline", "due", "settings"."policy", "settings"."retry_limit",
          "settings"."retry_delay", "settings"."retry_backoff", "settings"."retry_delay_max",
          "settings"."expire_seconds", "settings"."deletion_seconds",
          "due" + "settings"."retention_seconds" * interval ''1 second'', "settings"."dead_letter",
          "settings"."heartbeat_seconds")
  ON CONFLICT DO NOTHING\073
END
';

-- One message of type "message_type" per subject (a JSON array of rows, each with its account_id
-- and id) and per enabled endpoint of its account subscribed to that type, each with its delivery
-- job due now: it answers how many. With "once_per_subject" the message's id is made of its type, its
-- endpoint and its subject's id, so that recording it again records nothing (a timeline's window
-- closes once), and otherwise each is new and random. A NOTICE tells the connection that wrote how many
-- it recorded, which the service counts (tns_webhook_messages_recorded_total).
CREATE FUNCTION "record_webhook_messages"("message_type" text, "subjects" jsonb, "once_per_subject" boolean)
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
    RETURNING "account_id", "id", "endpoint_id"
  )
  SELECT count("enqueue_webhook_delivery"("message"."account_id", "message"."id", "message"."endpoint_id", now()))
    INTO "recorded" FROM "message"\073
  IF "recorded" > 0 THEN
    RAISE NOTICE USING MESSAGE = ''webhook messages recorded'',
      DETAIL = json_build_object(''type'', "message_type", ''count'', "recorded")::text\073
  END IF\073
  RETURN "recorded"\073
END
';

-- event.recorded: the events a statement inserted. An account without an enabled endpoint subscribed
-- to the type pays the first two statements alone: its id read off the statement's rows, and one
-- scan of the endpoints' primary key for it (a unit of work writes one account).
CREATE FUNCTION "record_webhooks_of_recorded_events"() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  "accounts" text[]\073
BEGIN
  SELECT array_agg(DISTINCT "account_id") INTO "accounts" FROM "written_events"\073
  IF NOT EXISTS (SELECT 1 FROM "webhook_endpoints" AS "endpoint"
                  WHERE "endpoint"."account_id" = ANY ("accounts")
                    AND "endpoint"."status" = ''enabled'' AND ''event.recorded'' = ANY ("endpoint"."event_types")) THEN
    RETURN NULL\073
  END IF\073
  PERFORM "record_webhook_messages"(''event.recorded'', (SELECT jsonb_agg(to_jsonb("written")) FROM "written_events" AS "written"), false)\073
  RETURN NULL\073
END
';

-- event.updated: the events a statement changed as a receiver sees them (the event object of the
-- listings: its timeline, kind, times, description, place, subject and revision). A statement that
-- only stamps what the service keeps for itself (the account's version, the writer's trace, the
-- search digests: a backfill, say) is no change to announce.
CREATE FUNCTION "record_webhooks_of_updated_events"() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  "accounts" text[]\073
BEGIN
  SELECT array_agg(DISTINCT "account_id") INTO "accounts" FROM "written_events"\073
  IF NOT EXISTS (SELECT 1 FROM "webhook_endpoints" AS "endpoint"
                  WHERE "endpoint"."account_id" = ANY ("accounts")
                    AND "endpoint"."status" = ''enabled'' AND ''event.updated'' = ANY ("endpoint"."event_types")) THEN
    RETURN NULL\073
  END IF\073
  PERFORM "record_webhook_messages"(''event.updated'', (
    SELECT jsonb_agg(to_jsonb("written"))
      FROM "written_events" AS "written"
      JOIN "previous_events" AS "previous" ON "previous"."account_id" = "written"."account_id" AND "previous"."id" = "written"."id"
     WHERE ("written"."timeline_id", "written"."kind", "written"."time", "written"."original_time", "written"."description",
            "written"."location", "written"."subject_id", "written"."revision")
           IS DISTINCT FROM
           ("previous"."timeline_id", "previous"."kind", "previous"."time", "previous"."original_time", "previous"."description",
            "previous"."location", "previous"."subject_id", "previous"."revision")), false)\073
  RETURN NULL\073
END
';

CREATE TRIGGER "events_inserted_webhooks"
  AFTER INSERT ON "events"
  REFERENCING NEW TABLE AS "written_events"
  FOR EACH STATEMENT
  EXECUTE FUNCTION "record_webhooks_of_recorded_events"();

CREATE TRIGGER "events_updated_webhooks"
  AFTER UPDATE ON "events"
  REFERENCING OLD TABLE AS "previous_events" NEW TABLE AS "written_events"
  FOR EACH STATEMENT
  EXECUTE FUNCTION "record_webhooks_of_updated_events"();

-- timeline.window_closed: a timeline's window closes at its deadline (created_at in whole seconds,
-- plus its minutes: Timeline.deadline), and the check is due a second later, once the window has
-- passed (Timeline.windowHasPassed).
CREATE FUNCTION "window_check_due"("created_at" timestamptz, "window_minutes" integer)
  RETURNS timestamptz LANGUAGE sql STABLE AS E'
  SELECT date_trunc(''second'', "created_at") + make_interval(mins => "window_minutes") + interval ''1 second''
';

-- The check of each window still open of the accounts given, whose endpoint just began to receive
-- the type. Only timelines made within the longest window (MAX_WINDOW_MINUTES, a week:
-- src/core/domain/timeline.ts) can still be open, which bounds the read to a week of each account's
-- timelines, in the index by account and creation.
CREATE FUNCTION "schedule_open_window_checks"("accounts" text[]) RETURNS void LANGUAGE plpgsql AS E'
BEGIN
  PERFORM "enqueue_window_check"("open"."account_id", "open"."id", "open"."due")
     FROM (SELECT "timeline"."account_id", "timeline"."id",
                  "window_check_due"("timeline"."created_at", "timeline"."window_minutes") AS "due"
             FROM "timelines" AS "timeline"
            WHERE "timeline"."account_id" = ANY ("accounts")
              AND "timeline"."created_at" > now() - interval ''10081 minutes''
              AND "timeline"."window_minutes" IS NOT NULL
              AND "timeline"."status" IN (''open'', ''active'')) AS "open"
    WHERE "open"."due" > now()\073
END
';

-- An endpoint made enabled and subscribed to timeline.window_closed.
CREATE FUNCTION "schedule_window_checks_of_created_endpoints"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  PERFORM "schedule_open_window_checks"(ARRAY(
    SELECT DISTINCT "created"."account_id" FROM "created_endpoints" AS "created"
     WHERE "created"."status" = ''enabled'' AND ''timeline.window_closed'' = ANY ("created"."event_types")))\073
  RETURN NULL\073
END
';

-- An endpoint enabled again, or subscribed to timeline.window_closed, by an update.
CREATE FUNCTION "schedule_window_checks_of_changed_endpoints"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  PERFORM "schedule_open_window_checks"(ARRAY(
    SELECT DISTINCT "changed"."account_id" FROM "changed_endpoints" AS "changed"
     WHERE "changed"."status" = ''enabled'' AND ''timeline.window_closed'' = ANY ("changed"."event_types")
       AND NOT EXISTS (SELECT 1 FROM "previous_endpoints" AS "previous"
                        WHERE "previous"."account_id" = "changed"."account_id" AND "previous"."id" = "changed"."id"
                          AND "previous"."status" = ''enabled''
                          AND ''timeline.window_closed'' = ANY ("previous"."event_types"))))\073
  RETURN NULL\073
END
';

CREATE TRIGGER "webhook_endpoints_inserted_window_checks"
  AFTER INSERT ON "webhook_endpoints"
  REFERENCING NEW TABLE AS "created_endpoints"
  FOR EACH STATEMENT
  EXECUTE FUNCTION "schedule_window_checks_of_created_endpoints"();

CREATE TRIGGER "webhook_endpoints_updated_window_checks"
  AFTER UPDATE ON "webhook_endpoints"
  REFERENCING OLD TABLE AS "previous_endpoints" NEW TABLE AS "changed_endpoints"
  FOR EACH STATEMENT
  EXECUTE FUNCTION "schedule_window_checks_of_changed_endpoints"();

-- A timeline made with a window, of an account with an endpoint subscribed to timeline.window_closed.
CREATE FUNCTION "schedule_window_checks_of_created_timelines"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  PERFORM "enqueue_window_check"("created"."account_id", "created"."id",
                                 "window_check_due"("created"."created_at", "created"."window_minutes"))
     FROM "created_timelines" AS "created"
    WHERE "created"."window_minutes" IS NOT NULL
      AND EXISTS (SELECT 1 FROM "webhook_endpoints" AS "endpoint"
                   WHERE "endpoint"."account_id" = "created"."account_id" AND "endpoint"."status" = ''enabled''
                     AND ''timeline.window_closed'' = ANY ("endpoint"."event_types"))\073
  RETURN NULL\073
END
';

CREATE TRIGGER "timelines_inserted_window_checks"
  AFTER INSERT ON "timelines"
  REFERENCING NEW TABLE AS "created_timelines"
  FOR EACH STATEMENT
  EXECUTE FUNCTION "schedule_window_checks_of_created_timelines"();
