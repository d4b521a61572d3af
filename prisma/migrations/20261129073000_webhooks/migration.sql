-- Webhook endpoints, the messages to push to them and each attempt (docs/webhooks.md).
-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "account_id" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "description" TEXT,
    "event_types" TEXT[],
    "status" TEXT NOT NULL,
    "disabled_reason" TEXT,
    "secret" TEXT NOT NULL,
    "previous_secret" TEXT,
    "previous_secret_until" TIMESTAMPTZ(3),
    "failing_since" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("account_id","id")
);

-- CreateTable
CREATE TABLE "webhook_messages" (
    "account_id" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "endpoint_id" TEXT NOT NULL,
    "event_type" TEXT NOT NULL,
    "subject" JSONB NOT NULL,
    "body" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "state" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),

    CONSTRAINT "webhook_messages_pkey" PRIMARY KEY ("account_id","id")
);

-- CreateTable
CREATE TABLE "webhook_attempts" (
    "account_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "endpoint_id" TEXT NOT NULL,
    "attempted_at" TIMESTAMPTZ(3) NOT NULL,
    "status" INTEGER,
    "error" TEXT,
    "duration_ms" INTEGER NOT NULL,
    "answer" TEXT,
    "next_attempt_at" TIMESTAMPTZ(3),

    CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("account_id","message_id","attempt")
);

-- CreateIndex
CREATE INDEX "webhook_endpoints_account_id_created_at_id_idx" ON "webhook_endpoints"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "webhook_messages_by_endpoint" ON "webhook_messages"("account_id", "endpoint_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "webhook_messages_pending_by_age" ON "webhook_messages"("created_at") WHERE (state = 'pending');

-- CreateIndex
CREATE INDEX "webhook_attempts_by_endpoint" ON "webhook_attempts"("account_id", "endpoint_id", "attempted_at" DESC, "message_id", "attempt");

-- AddForeignKey
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_messages" ADD CONSTRAINT "webhook_messages_account_id_endpoint_id_fkey" FOREIGN KEY ("account_id", "endpoint_id") REFERENCES "webhook_endpoints"("account_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_account_id_message_id_fkey" FOREIGN KEY ("account_id", "message_id") REFERENCES "webhook_messages"("account_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;
