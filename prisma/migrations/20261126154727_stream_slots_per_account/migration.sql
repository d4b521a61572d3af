-- Event streams are counted per account, all its API keys together (docs/decisions.md, "Event
-- streams"): a slot is the account's. The slots held now are a key's, and two keys of one account
-- may hold the same slot number, so they are given up: their streams end at their next renewal and
-- reconnect, taking slots of their account. The table is an unlogged table of leases; nothing kept
-- is lost. Processes of the earlier release, still running during a rolling upgrade, fail to open a
-- stream from here on (their statement names the old key); their clients reconnect, and a process
-- of this release takes them.
DELETE FROM "event_stream_slots";

-- DropIndex
DROP INDEX "event_stream_slots_account_id_idx";

-- AlterTable
ALTER TABLE "event_stream_slots" DROP CONSTRAINT "event_stream_slots_pkey",
ADD CONSTRAINT "event_stream_slots_pkey" PRIMARY KEY ("account_id", "slot");
