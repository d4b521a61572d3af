-- A resend is one attempt (webhook_messages.last_attempt), and a message for one endpoint whatever
-- it subscribes to (webhook.test): docs/webhooks.md, "Resending" and "Testing".
-- AlterTable
ALTER TABLE "webhook_messages" ADD COLUMN     "last_attempt" INTEGER;

-- One message of type "message_type" about "subject" for one endpoint of the account, whatever it
-- subscribes to and whatever its state (webhook.test, which no endpoint subscribes to, sent when its
-- owner asks), with its delivery job due now. It answers the message's id, or null when the account
-- has no such endpoint; a NOTICE tells the connection, as record_webhook_messages does, so the
-- service counts it (tns_webhook_messages_recorded_total). The body is an E'' string with \073 for
-- each semicolon, as in migration 20261129082908_webhook_recording.
CREATE FUNCTION "record_webhook_message"("for_account" text, "endpoint" text, "message_type" text, "subject" jsonb)
  RETURNS text LANGUAGE plpgsql AS E'
DECLARE
  "message_id" text\073
BEGIN
  INSERT INTO "webhook_messages" ("account_id", "id", "endpoint_id", "event_type", "subject", "created_at", "state")
  SELECT "account_id", ''msg_'' || replace(gen_random_uuid()::text, ''-'', ''''), "id", "message_type", "subject",
         now(), ''pending''
    FROM "webhook_endpoints" WHERE "account_id" = "for_account" AND "id" = "endpoint"
  RETURNING "id" INTO "message_id"\073
  IF "message_id" IS NULL THEN
    RETURN NULL\073
  END IF\073
  PERFORM "enqueue_webhook_delivery"("for_account", "message_id", "endpoint", now())\073
  RAISE NOTICE USING MESSAGE = ''webhook messages recorded'',
    DETAIL = json_build_object(''type'', "message_type", ''count'', 1)::text\073
  RETURN "message_id"\073
END
';
