-- The W3C traceparent of the traced request whose unit of work last wrote the event, stamped by
-- that unit's statement: an event stream's delivery of the change continues its trace.
-- AlterTable
ALTER TABLE "events" ADD COLUMN     "writer_trace" TEXT;
