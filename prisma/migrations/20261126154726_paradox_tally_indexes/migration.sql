-- Paradox checks read a bounded range of a timeline's displaced or manipulated events, in order,
-- off indexes that hold those events alone (docs/paradoxes.md#bounded-work); they replace the index
-- by revision, whose reads took every manipulated event of the timeline.
-- DropIndex
DROP INDEX "events_account_id_timeline_id_revision_idx";

-- CreateIndex
CREATE INDEX "events_displaced_by_original_time" ON "events"("account_id", "timeline_id", "original_time", "id", "time") WHERE (subject_id IS NOT NULL AND "time" <> original_time);

-- CreateIndex
CREATE INDEX "events_displaced_by_time" ON "events"("account_id", "timeline_id", "time", "id", "original_time") WHERE (subject_id IS NOT NULL AND "time" <> original_time);

-- CreateIndex
CREATE INDEX "events_manipulated_by_original_time" ON "events"("account_id", "timeline_id", "original_time", "id", "time") WHERE (revision > 0);

-- CreateIndex
CREATE INDEX "events_manipulated_by_time" ON "events"("account_id", "timeline_id", "time", "id", "original_time") WHERE (revision > 0);
