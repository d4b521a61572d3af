// A delivery's span follows its writer's sampling decision (the service's own sampler draws for a
// caller's context, not for the writer's, which the service kept), is the writer's child, and is
// linked to the stream's own request (the parent needs no link of its own).
import { SpanKind, TraceFlags } from '@opentelemetry/api';
import { keptTraceContext, ServiceDrawSampler } from '../../../src/infrastructure/telemetry/sampling';
import { DeliverySpans } from '../../../src/interfaces/http/event-stream/delivery-spans';
import { parentOf, startInMemoryTracing, type InMemoryTracing } from '../../support/telemetry/in-memory-tracing';

const WRITER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const WRITER_SPAN = 'b7ad6b7169203331';
const STREAM = {
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
  traceFlags: TraceFlags.SAMPLED,
};

describe('delivery spans', () => {
  let tracing: InMemoryTracing;
  beforeEach(() => {
    tracing = startInMemoryTracing();
  });
  afterEach(() => tracing.close());

  const delivered = (flags: string) =>
    new DeliverySpans(tracing.tracer, keptTraceContext).start(
      { id: '1', event: 'recorded', data: '{}', origin: `00-${WRITER_TRACE}-${WRITER_SPAN}-${flags}` },
      STREAM,
    );

  it("continues a sampled writer's trace, linked to the stream's request alone", () => {
    delivered('01')?.end();
    const [span] = tracing.named('deliver recorded');
    expect(span?.kind).toBe(SpanKind.PRODUCER);
    expect(span?.spanContext().traceId).toBe(WRITER_TRACE);
    expect(span && parentOf(span)).toBe(WRITER_SPAN);
    expect(span?.links.map((link) => link.context.spanId)).toEqual([STREAM.spanId]);
  });

  it('makes no span for a writer that was not sampled', () => {
    expect(delivered('00')).toBeUndefined();
  });
});

describe("delivery spans under the service's own sampler", () => {
  it("follow their sampled writer where the service's draw would sample nothing", async () => {
    const tracing = startInMemoryTracing({ sampler: new ServiceDrawSampler(0) });
    try {
      new DeliverySpans(tracing.tracer, keptTraceContext)
        .start({ id: '1', event: 'recorded', data: '{}', origin: `00-${WRITER_TRACE}-${WRITER_SPAN}-01` }, STREAM)
        ?.end();
      expect(tracing.named('deliver recorded').map((span) => span.spanContext().traceId)).toEqual([WRITER_TRACE]);
    } finally {
      await tracing.close();
    }
  });
});
