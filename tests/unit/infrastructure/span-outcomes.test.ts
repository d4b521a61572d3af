// What became of the spans, as OpenTelemetry's batch processor reports it to the meter it is given:
// exported, dropped because the queue was full, or lost with a failed export; read by the
// Prometheus counter otel_sdk_processor_span_processed_total, and each loss told to the loss log.
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { Registry } from 'prom-client';
import { countProcessedSpans } from '../../../src/infrastructure/metrics/tracing-metrics';
import { SpanOutcomes } from '../../../src/infrastructure/telemetry/span-outcomes';
import { samplesOf } from '../../support/metrics/exposition';

/** An exporter whose exports are answered when the test says. */
class HeldExporter implements SpanExporter {
  readonly held: Array<{ spans: ReadableSpan[]; answer: (result: ExportResult) => void }> = [];
  export(spans: ReadableSpan[], answer: (result: ExportResult) => void): void {
    this.held.push({ spans, answer });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

function tracedWith(exporter: SpanExporter, outcomes: SpanOutcomes) {
  const processor = new BatchSpanProcessor({
    exporter,
    maxQueueSize: 4,
    maxExportBatchSize: 2,
    scheduledDelayMillis: 60_000,
    selfObsMeterProvider: outcomes.meterProvider(),
  });
  const provider = new TracerProvider({ spanProcessors: [processor] });
  const tracer = provider.getTracer('test');
  return {
    provider,
    end: (spans: number) => {
      for (let i = 0; i < spans; i++) tracer.startSpan('GET /healthz', {}, ROOT_CONTEXT).end();
    },
  };
}

describe('span outcomes', () => {
  it('counts the spans dropped by a full queue and those of a failed export, and tells each loss', async () => {
    const lost: Array<[number, string]> = [];
    const outcomes = new SpanOutcomes((count, errorType) => lost.push([count, errorType]));
    const exporter = new HeldExporter();
    const { provider, end } = tracedWith(exporter, outcomes);
    // Two go out in a batch (held), four wait in the queue, four find it full.
    end(10);
    expect(exporter.held).toHaveLength(1);
    expect(outcomes.processedSpans().get('queue_full')).toBe(4);
    expect(lost).toEqual([
      [1, 'queue_full'],
      [1, 'queue_full'],
      [1, 'queue_full'],
      [1, 'queue_full'],
    ]);

    exporter.held[0]?.answer({ code: ExportResultCode.FAILED, error: new TypeError('collector gone') });
    await new Promise((resolve) => setImmediate(resolve));
    expect(outcomes.processedSpans().get('TypeError')).toBe(2);
    expect(lost.at(-1)).toEqual([2, 'TypeError']);

    // The next batch, exported.
    await new Promise((resolve) => setImmediate(resolve));
    exporter.held[1]?.answer({ code: ExportResultCode.SUCCESS });
    await new Promise((resolve) => setImmediate(resolve));
    expect(outcomes.processedSpans().get('')).toBe(2);
    expect(lost).toHaveLength(5);

    const shutdown = provider.shutdown();
    await new Promise((resolve) => setImmediate(resolve));
    for (const held of exporter.held.slice(2)) held.answer({ code: ExportResultCode.SUCCESS });
    await shutdown;
  });

  it('is otel_sdk_processor_span_processed_total by error_type, from 0 for the exported and the dropped', async () => {
    const outcomes = new SpanOutcomes(() => undefined);
    const registry = new Registry();
    countProcessedSpans(registry, outcomes);
    const counted = async (errorType: string) =>
      samplesOf(await registry.metrics(), 'otel_sdk_processor_span_processed_total', { error_type: errorType });
    expect(await counted('')).toEqual([0]);
    expect(await counted('queue_full')).toEqual([0]);

    const exporter = new HeldExporter();
    const { provider, end } = tracedWith(exporter, outcomes);
    end(10);
    expect(await counted('queue_full')).toEqual([4]);
    end(3);
    expect(await counted('queue_full')).toEqual([7]);

    const shutdown = provider.shutdown();
    for (let round = 0; round < 5; round++) {
      await new Promise((resolve) => setImmediate(resolve));
      for (const held of exporter.held.splice(0)) held.answer({ code: ExportResultCode.SUCCESS });
    }
    await shutdown;
    expect(await counted('')).toEqual([6]);
  });
});
