import {
  type Counter,
  createNoopMeter,
  type Meter,
  type MeterProvider,
  type MetricAttributes,
} from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';

/** OpenTelemetry's name for the spans a span processor is done with (its SDK's self-observability). */
const PROCESSED = 'otel.sdk.processor.span.processed';

/** Spans the batch processors are done with, by `error.type`: '' exported, else why they were lost. */
export interface ProcessedSpans {
  processedSpans(): ReadonlyMap<string, number>;
}

/**
 * What became of the spans the batch processors took, counted as OpenTelemetry's SDK reports it
 * (`otel.sdk.processor.span.processed`) to the meter provider it is given for its own metrics:
 * by `error.type`, '' for the spans exported, `queue_full` for those dropped because the queue was
 * full, else the name of the error their export failed with (a timeout, a refusal, the limit of
 * exports in flight). Only that one metric is kept; the SDK's others go to a meter that drops them.
 */
export class SpanOutcomes implements ProcessedSpans {
  private readonly totals = new Map<string, number>([
    ['', 0],
    ['queue_full', 0],
  ]);
  private readonly counter: Counter = {
    add: (count: number, attributes?: MetricAttributes) => {
      const errorType = String(attributes?.[ATTR_ERROR_TYPE] ?? '');
      this.totals.set(errorType, (this.totals.get(errorType) ?? 0) + count);
      if (errorType !== '') this.onLost(count, errorType);
    },
  };

  constructor(private readonly onLost: (count: number, errorType: string) => void) {}

  processedSpans(): ReadonlyMap<string, number> {
    return this.totals;
  }

  /** For a BatchSpanProcessor's `selfObsMeterProvider`. */
  meterProvider(): MeterProvider {
    const meter = countingMeter(this.counter);
    return { getMeter: () => meter };
  }
}

/** A meter whose `otel.sdk.processor.span.processed` counter is `processed`, and whose other instruments do nothing. */
function countingMeter(processed: Counter): Meter {
  const noop = createNoopMeter();
  return {
    createCounter: (name, options) => (name === PROCESSED ? processed : noop.createCounter(name, options)),
    createGauge: (name, options) => noop.createGauge(name, options),
    createHistogram: (name, options) => noop.createHistogram(name, options),
    createUpDownCounter: (name, options) => noop.createUpDownCounter(name, options),
    createObservableGauge: (name, options) => noop.createObservableGauge(name, options),
    createObservableCounter: (name, options) => noop.createObservableCounter(name, options),
    createObservableUpDownCounter: (name, options) => noop.createObservableUpDownCounter(name, options),
    addBatchObservableCallback: (callback, observables) => noop.addBatchObservableCallback(callback, observables),
    removeBatchObservableCallback: (callback, observables) => noop.removeBatchObservableCallback(callback, observables),
  };
}
