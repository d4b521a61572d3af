-- The relay tells "another relay is at work" (-1) from "nothing waits" (0): a process told that its
-- write recorded messages looks at once, and looks again shortly when another relay held the lock,
-- whose statement may have begun before that write committed (docs/webhooks.md, "Recording").
-- relay_webhook_messages takes the same transaction-level advisory lock, which a session holding it
-- takes again at once.
--
-- The function body is an E'' string with \073 for each semicolon: Prisma's migration engine run
-- in-process splits a script at every semicolon, even inside $$ quotes.

CREATE OR REPLACE FUNCTION "relay_webhook_messages_when_free"("per_endpoint" integer, "at_most" integer)
  RETURNS integer LANGUAGE plpgsql AS E'
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext(''relay_webhook_messages'')) THEN
    RETURN -1\073
  END IF\073
  RETURN relay_webhook_messages("per_endpoint", "at_most")\073
END
';
