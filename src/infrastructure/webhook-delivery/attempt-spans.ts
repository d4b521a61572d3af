import { context, type Span, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
} from '@opentelemetry/semantic-conventions';
import type { AttemptResult } from '../../core/domain/webhook-attempt';
import { keptSpanContext } from '../../kept-span-context';

/** OpenTelemetry's stand-in for a secret taken out of `url.full`. */
const REDACTED = 'REDACTED';

/**
 * The CLIENT span of one attempt's POST, by OpenTelemetry's HTTP client conventions, a child of
 * what runs it (the job's process span) and linked to the trace of the write that caused the
 * message (`origin`, its writer's traceparent), so that a write's trace leads to its deliveries,
 * however many days later they come. Undefined without a tracer: tracing off costs nothing here.
 */
export function startAttemptSpan(tracer: Tracer | undefined, url: URL | null, origin: string | null): Span | undefined {
  if (!tracer) return undefined;
  const writer = keptSpanContext(origin);
  const span = tracer.startSpan(
    'POST',
    { kind: SpanKind.CLIENT, ...(writer && { links: [{ context: writer }] }) },
    context.active(),
  );
  // An unsampled span records nothing: its attributes would be work for nothing.
  if (span.isRecording() && url) {
    span.setAttributes({
      [ATTR_HTTP_REQUEST_METHOD]: 'POST',
      [ATTR_URL_FULL]: urlWithoutSecrets(url),
      [ATTR_SERVER_ADDRESS]: url.hostname,
      [ATTR_SERVER_PORT]: url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
    });
  }
  return span;
}

/**
 * Ends the span with what the attempt came to: the answer's status, and `error.type` for an attempt
 * that did not deliver (why no answer came, or the status of a 4xx or 5xx), which marks it failed.
 */
export function endAttemptSpan(span: Span | undefined, result: AttemptResult): void {
  if (!span) return;
  if (span.isRecording()) {
    if (result.status !== null) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, result.status);
    const errorType = result.error ?? (result.status !== null && result.status >= 400 ? String(result.status) : null);
    if (errorType !== null) {
      span.setAttribute(ATTR_ERROR_TYPE, errorType);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  }
  span.end();
}

/**
 * `url.full` as OpenTelemetry asks it: credentials replaced, and here the query too, whole, since
 * a receiver's token often rides in its URL's query, as a value or alone (the attempt's log line
 * leaves the URL out).
 */
function urlWithoutSecrets(url: URL): string {
  const shown = new URL(url.href);
  if (shown.username !== '' || shown.password !== '') {
    shown.username = REDACTED;
    shown.password = REDACTED;
  }
  if (shown.search !== '') shown.search = REDACTED;
  return shown.href;
}
