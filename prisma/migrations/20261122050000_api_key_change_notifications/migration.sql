-- Every service process keeps the API keys it verified in memory (docs/decisions.md, "Verified API
-- keys in memory"). Whatever changes a key's validity, by whichever path (the API, the dashboard,
-- a session ending, an operator's SQL, an account's rows cascading away), must reach all of them
-- when it commits: the database announces it itself, with NOTIFY on channel "api_key_changes",
-- payload the key's id ('*' when the table is emptied). NOTIFY is transactional: it is delivered
-- when the change commits and never for a rollback. Recording a key's last use does not notify.
-- Prisma's schema cannot describe triggers, so no later `migrate diff` will touch them.
--
-- The function body is an E'' string with \073 for each semicolon: the in-process migration runner
-- (@prisma/adapter-pg's executeScript) splits a script at every semicolon, even inside $$ quotes.
CREATE FUNCTION "notify_api_key_change"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  IF TG_OP = ''TRUNCATE'' THEN
    PERFORM pg_notify(''api_key_changes'', ''*'')\073
  ELSE
    PERFORM pg_notify(''api_key_changes'', OLD."id")\073
  END IF\073
  RETURN NULL\073
END
';

CREATE TRIGGER "api_key_changed"
  AFTER UPDATE ON "api_keys"
  FOR EACH ROW
  WHEN ((OLD."id", OLD."account_id", OLD."digest", OLD."revoked_at", OLD."expires_at")
        IS DISTINCT FROM (NEW."id", NEW."account_id", NEW."digest", NEW."revoked_at", NEW."expires_at"))
  EXECUTE FUNCTION "notify_api_key_change"();

CREATE TRIGGER "api_key_deleted"
  AFTER DELETE ON "api_keys"
  FOR EACH ROW
  EXECUTE FUNCTION "notify_api_key_change"();

CREATE TRIGGER "api_keys_truncated"
  AFTER TRUNCATE ON "api_keys"
  FOR EACH STATEMENT
  EXECUTE FUNCTION "notify_api_key_change"();
