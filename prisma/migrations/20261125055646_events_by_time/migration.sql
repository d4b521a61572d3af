-- CreateIndex
CREATE INDEX "events_account_id_timeline_id_time_id_idx" ON "events"("account_id", "timeline_id", "time", "id");
