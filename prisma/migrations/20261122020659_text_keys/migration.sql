-- DropIndex
DROP INDEX "items_account_id_timeline_id_description_location_found_at_idx";

-- CreateIndex
CREATE INDEX "items_account_id_timeline_id_found_at_idx" ON "items"("account_id", "timeline_id", "found_at");
