-- Restricted keys: a level (none, read or write) by resource, null for a full key
-- (src/core/domain/api-key-permissions.ts). Every process keeps a verified key's permissions in
-- its cache, so a change of them must be announced as a revocation is: the trigger of migration
-- 20261122050000_api_key_change_notifications is made again with the column in its condition.
-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "permissions" JSONB;

DROP TRIGGER "api_key_changed" ON "api_keys";

CREATE TRIGGER "api_key_changed"
  AFTER UPDATE ON "api_keys"
  FOR EACH ROW
  WHEN ((OLD."id", OLD."account_id", OLD."digest", OLD."revoked_at", OLD."expires_at", OLD."permissions")
        IS DISTINCT FROM (NEW."id", NEW."account_id", NEW."digest", NEW."revoked_at", NEW."expires_at", NEW."permissions"))
  EXECUTE FUNCTION "notify_api_key_change"();
