import { ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import type { Job } from 'pg-boss';

// OpenTelemetry's messaging conventions, still incubating: copied, as its guide advises, rather
// than imported from a module whose names may change.
export const ATTR_MESSAGING_SYSTEM = 'messaging.system';
export const ATTR_MESSAGING_OPERATION_TYPE = 'messaging.operation.type';
export const ATTR_MESSAGING_OPERATION_NAME = 'messaging.operation.name';
export const ATTR_MESSAGING_DESTINATION_NAME = 'messaging.destination.name';
const ATTR_MESSAGING_MESSAGE_ID = 'messaging.message.id';

/**
 * Runs a job in a CONSUMER span of its own, `process <queue>` by OpenTelemetry's messaging
 * conventions: the root of what the job does (the use case, its statements, a delivery's POST),
 * sampled by the service's own draw as a request is. A job of a webhook delivery links to the
 * trace of the write that caused its message from its POST's span (attempt-spans.ts), the one
 * place that knows the message. Without a tracer the job runs as it is.
 */
export function inProcessSpan<T>(tracer: Tracer | undefined, job: Job<unknown>, run: () => Promise<T>): Promise<T> {
  if (!tracer) return run();
  const attributes = {
    [ATTR_MESSAGING_SYSTEM]: 'pg-boss',
    [ATTR_MESSAGING_OPERATION_TYPE]: 'process',
    [ATTR_MESSAGING_OPERATION_NAME]: 'process',
    [ATTR_MESSAGING_DESTINATION_NAME]: job.name,
    [ATTR_MESSAGING_MESSAGE_ID]: job.id,
  };
  return tracer.startActiveSpan(
    `process ${job.name}`,
    { kind: SpanKind.CONSUMER, attributes },
    ROOT_CONTEXT,
    async (span) => {
      try {
        return await run();
      } catch (error) {
        failed(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

function failed(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.constructor.name : 'Error');
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}
