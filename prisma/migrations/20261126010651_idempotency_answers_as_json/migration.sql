-- Kept answers of Idempotency-Keys as `json`, the text they were sent as (docs/decisions.md,
-- "Idempotency-Key"): `jsonb` cannot hold \u0000, which an answer may echo from its request (a
-- field name refused by validation), so keeping such an answer failed, on every retry; and it
-- reorders an object's keys, so a replay was equal to the first answer but not the same text.
-- AlterTable
ALTER TABLE "idempotency_keys" ALTER COLUMN "response_body" SET DATA TYPE JSON,
ALTER COLUMN "response_headers" SET DATA TYPE JSON;
