-- A disabled endpoint's messages still pending are failed with its disabling, in the statement that
-- disables it (docs/webhooks.md, "A disabled endpoint"; docs/decisions.md, "Webhook messages of a
-- disabled endpoint"): by its owner, by a 410, or after 5 days of failures alike. Nothing would ever
-- deliver them (an attempt skips a disabled endpoint's message), so pending they would only age the
-- oldest pending message's metric forever; enabled again, the endpoint receives the changes made
-- from then on, and its owner resends an old message if it still wants it.
--
-- The function body is an E'' string with \073 for each semicolon: Prisma's migration engine run
-- in-process splits a script at every semicolon, even inside $$ quotes.

-- An endpoint's pending messages, as many as it has waiting, not its whole history.
CREATE INDEX "webhook_messages_pending_by_endpoint" ON "webhook_messages"("account_id", "endpoint_id") WHERE (state = 'pending');

CREATE FUNCTION "fail_messages_of_disabled_endpoints"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  UPDATE "webhook_messages" AS "message"
     SET "state" = ''failed'', "next_attempt_at" = NULL
    FROM "changed_endpoints" AS "changed"
    JOIN "previous_endpoints" AS "previous"
      ON "previous"."account_id" = "changed"."account_id" AND "previous"."id" = "changed"."id"
   WHERE "changed"."status" = ''disabled'' AND "previous"."status" = ''enabled''
     AND "message"."account_id" = "changed"."account_id" AND "message"."endpoint_id" = "changed"."id"
     AND "message"."state" = ''pending''\073
  RETURN NULL\073
END
';

CREATE TRIGGER "webhook_endpoints_disabled_messages"
  AFTER UPDATE ON "webhook_endpoints"
  REFERENCING OLD TABLE AS "previous_endpoints" NEW TABLE AS "changed_endpoints"
  FOR EACH STATEMENT
  EXECUTE FUNCTION "fail_messages_of_disabled_endpoints"();
