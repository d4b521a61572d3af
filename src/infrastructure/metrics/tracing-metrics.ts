import { Counter, type Registry } from 'prom-client';
import type { ProcessedSpans } from '../telemetry/span-outcomes';

/**
 * `otel_sdk_processor_span_processed_total`: the spans tracing is done with, by `error_type`, as
 * OpenTelemetry's SDK names its own metric (`otel.sdk.processor.span.processed`): empty for those
 * exported, `queue_full` for those dropped because the queue was full, else the error their export
 * failed with (docs/operations.md, "Traces"). Read from the tracing's totals at each scrape.
 */
export function countProcessedSpans(registry: Registry, tracing: ProcessedSpans): void {
  const seen = new Map<string, number>();
  new Counter({
    name: 'otel_sdk_processor_span_processed_total',
    help:
      "Spans tracing is done with, by error_type: '' exported, 'queue_full' dropped because the queue " +
      'was full, else the error their export failed with.',
    labelNames: ['error_type'],
    registers: [registry],
    collect() {
      for (const [errorType, total] of tracing.processedSpans()) {
        this.inc({ error_type: errorType }, total - (seen.get(errorType) ?? 0));
        seen.set(errorType, total);
      }
    },
  });
}
