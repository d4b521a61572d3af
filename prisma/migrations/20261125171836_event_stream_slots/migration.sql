-- Event streams held per API key across processes (docs/decisions.md, "Event streams").
-- CreateTable
CREATE TABLE "event_stream_slots" (
    "api_key_id" TEXT NOT NULL,
    "slot" INTEGER NOT NULL,
    "holder" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "event_stream_slots_pkey" PRIMARY KEY ("api_key_id","slot")
);

-- CreateIndex
CREATE INDEX "event_stream_slots_holder_idx" ON "event_stream_slots"("holder");

-- Slots live for a stream's lease and are renewed every heartbeat by each process: unlogged, their
-- writes skip the write-ahead log. A PostgreSQL crash empties the table, and its streams end with
-- it (they reconnect and take slots again). Prisma's schema cannot say UNLOGGED, so no later
-- `migrate diff` will undo it.
ALTER TABLE "event_stream_slots" SET UNLOGGED;
