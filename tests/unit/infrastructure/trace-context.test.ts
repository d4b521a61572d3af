// The writer's trace kept with an event (events.writer_trace) is read back only to continue a
// sampled trace (delivery-spans.ts): an unsampled context is not kept.
import { context, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { activeTraceparent } from '../../../src/infrastructure/telemetry/trace-context';
import { startInMemoryTracing, type InMemoryTracing } from '../../support/telemetry/in-memory-tracing';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SPAN_ID = 'b7ad6b7169203331';

describe('activeTraceparent', () => {
  let tracing: InMemoryTracing;
  beforeEach(() => {
    tracing = startInMemoryTracing();
  });
  afterEach(() => tracing.close());

  const within = (traceFlags: TraceFlags) =>
    context.with(trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags }), () =>
      activeTraceparent(),
    );

  it("is the sampled span's traceparent", () => {
    expect(within(TraceFlags.SAMPLED)).toBe(`00-${TRACE_ID}-${SPAN_ID}-01`);
  });

  it('is null for a span not sampled, and outside any span', () => {
    expect(within(TraceFlags.NONE)).toBeNull();
    expect(activeTraceparent()).toBeNull();
  });
});
