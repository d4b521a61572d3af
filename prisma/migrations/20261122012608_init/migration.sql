-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "accounts" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "travellers" (
    "account_id" TEXT NOT NULL,
    "clock_reading" TIMESTAMPTZ(3) NOT NULL,
    "clock_read_at" TIMESTAMPTZ(3) NOT NULL,
    "clock_paused" BOOLEAN NOT NULL,
    "timeline_id" TEXT NOT NULL,
    "location" TEXT NOT NULL,
    "journey_travel_id" TEXT,

    CONSTRAINT "travellers_pkey" PRIMARY KEY ("account_id")
);

-- CreateTable
CREATE TABLE "timelines" (
    "account_id" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "destination_time" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "status" TEXT NOT NULL,
    "window_minutes" INTEGER,

    CONSTRAINT "timelines_pkey" PRIMARY KEY ("account_id","id")
);

-- CreateTable
CREATE TABLE "anchors" (
    "account_id" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "timestamp" TIMESTAMPTZ(3) NOT NULL,
    "description" TEXT NOT NULL,
    "timeline_id" TEXT NOT NULL,
    "location" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "anchors_pkey" PRIMARY KEY ("account_id","id")
);

-- CreateTable
CREATE TABLE "items" (
    "account_id" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "location" TEXT NOT NULL,
    "timeline_id" TEXT NOT NULL,
    "registered_at" TIMESTAMPTZ(3) NOT NULL,
    "found_at" TIMESTAMPTZ(3) NOT NULL,
    "carried_home_by" TEXT,

    CONSTRAINT "items_pkey" PRIMARY KEY ("account_id","id")
);

-- CreateTable
CREATE TABLE "travels" (
    "account_id" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "destination" TEXT NOT NULL,
    "from_timeline_id" TEXT NOT NULL,
    "to_timeline_id" TEXT NOT NULL,
    "departed_at" TIMESTAMPTZ(3) NOT NULL,
    "arrival_time" TIMESTAMPTZ(3) NOT NULL,
    "items_transported" TEXT[],

    CONSTRAINT "travels_pkey" PRIMARY KEY ("account_id","id")
);

-- CreateTable
CREATE TABLE "events" (
    "account_id" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "timeline_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "time" TIMESTAMPTZ(3) NOT NULL,
    "original_time" TIMESTAMPTZ(3) NOT NULL,
    "description" TEXT NOT NULL,
    "location" TEXT NOT NULL,
    "description_key" TEXT NOT NULL,
    "location_key" TEXT NOT NULL,
    "subject_id" TEXT,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL,

    CONSTRAINT "events_pkey" PRIMARY KEY ("account_id","id")
);

-- CreateTable
CREATE TABLE "event_manipulations" (
    "account_id" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "from_time" TIMESTAMPTZ(3) NOT NULL,
    "to_time" TIMESTAMPTZ(3) NOT NULL,
    "applied_at" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL,

    CONSTRAINT "event_manipulations_pkey" PRIMARY KEY ("account_id","id")
);

-- CreateIndex
CREATE UNIQUE INDEX "accounts_email_key" ON "accounts"("email");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_digest_key" ON "api_keys"("digest");

-- CreateIndex
CREATE INDEX "api_keys_account_id_idx" ON "api_keys"("account_id");

-- CreateIndex
CREATE INDEX "timelines_account_id_created_at_id_idx" ON "timelines"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "items_account_id_timeline_id_description_location_found_at_idx" ON "items"("account_id", "timeline_id", "description", "location", "found_at");

-- CreateIndex
CREATE INDEX "events_account_id_timeline_id_location_key_time_id_idx" ON "events"("account_id", "timeline_id", "location_key", "time", "id");

-- CreateIndex
CREATE INDEX "events_account_id_timeline_id_description_key_time_id_idx" ON "events"("account_id", "timeline_id", "description_key", "time", "id");

-- CreateIndex
CREATE INDEX "events_account_id_timeline_id_revision_idx" ON "events"("account_id", "timeline_id", "revision");

-- CreateIndex
CREATE UNIQUE INDEX "event_manipulations_account_id_event_id_revision_key" ON "event_manipulations"("account_id", "event_id", "revision");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "travellers" ADD CONSTRAINT "travellers_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "timelines" ADD CONSTRAINT "timelines_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "anchors" ADD CONSTRAINT "anchors_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "items" ADD CONSTRAINT "items_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "travels" ADD CONSTRAINT "travels_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_manipulations" ADD CONSTRAINT "event_manipulations_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
