-- Each counter says when its window is over, so windows of any length share the table: a minute's
-- requests and an hour's kept Idempotency-Key answers (docs/decisions.md). Rows of an earlier
-- release's processes, whose windows are a minute at most, get two minutes from now.
-- DropIndex
DROP INDEX "rate_limit_counters_window_start_idx";

-- AlterTable
ALTER TABLE "rate_limit_counters" ADD COLUMN     "window_end" TIMESTAMPTZ(3) NOT NULL DEFAULT (now() + '00:02:00'::interval);

-- CreateIndex
CREATE INDEX "rate_limit_counters_window_end_idx" ON "rate_limit_counters"("window_end");
