// Each use case's run is a span of its own when tracing is on, made by the composition root: the
// core knows nothing of it. What its caller sees is unchanged: the same answer, the same error.
import 'reflect-metadata';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { Container } from 'inversify';
import { coreBinder } from '../../../src/composition/bindings';
import { TimelineNotFound } from '../../../src/core/domain/errors';
import { parentOf, startInMemoryTracing, type InMemoryTracing } from '../../support/telemetry/in-memory-tracing';

class PlanJourney {
  /** Inside the use case, where its statements' spans would start. */
  activeSpanId: string | undefined;

  async execute(input: { readonly outcome: 'ok' | 'refused' | 'fault' }): Promise<string> {
    await Promise.resolve();
    this.activeSpanId = trace.getActiveSpan()?.spanContext().spanId;
    if (input.outcome === 'refused') throw new TimelineNotFound('t-1');
    if (input.outcome === 'fault') throw new Error('the database fell over');
    return 'planned';
  }

  private helper(): string {
    return 'not an entry point';
  }

  describe(): string {
    return this.helper();
  }
}

class WatchSky {
  open(): string {
    return 'watching';
  }
}

describe('use cases as spans', () => {
  let tracing: InMemoryTracing;

  beforeEach(() => {
    tracing = startInMemoryTracing();
  });
  afterEach(() => tracing.close());

  function container(): Container {
    const built = new Container({ defaultScope: 'Singleton' });
    const bindCore = coreBinder(built, tracing.tracer);
    bindCore(PlanJourney);
    bindCore(WatchSky);
    return built;
  }

  it('runs each execute in a span of its own, a child of the caller span', async () => {
    const useCase = container().get(PlanJourney);
    let requestSpanId = '';
    const answer = await tracing.tracer.startActiveSpan('request', async (span) => {
      requestSpanId = span.spanContext().spanId;
      try {
        return await useCase.execute({ outcome: 'ok' });
      } finally {
        span.end();
      }
    });
    expect(answer).toBe('planned');
    const [span] = tracing.named('PlanJourney');
    expect(span && parentOf(span)).toBe(requestSpanId);
    // What the use case does runs in its span.
    expect(useCase.activeSpanId).toBe(span?.spanContext().spanId);
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("names a refusal's code without failing the span, and fails it on anything else", async () => {
    const useCase = container().get(PlanJourney);
    await expect(useCase.execute({ outcome: 'refused' })).rejects.toBeInstanceOf(TimelineNotFound);
    await expect(useCase.execute({ outcome: 'fault' })).rejects.toThrow('the database fell over');
    const [refused, fault] = tracing.named('PlanJourney');
    expect(refused?.attributes['error.type']).toBe('timeline_not_found');
    expect(refused?.status.code).toBe(SpanStatusCode.UNSET);
    expect(fault?.attributes['error.type']).toBe('Error');
    expect(fault?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'the database fell over' });
  });

  it('traces entry points only: execute, and open', () => {
    const built = container();
    expect(built.get(PlanJourney).describe()).toBe('not an entry point');
    expect(built.get(WatchSky).open()).toBe('watching');
    expect(tracing.spans().map((span) => span.name)).toEqual(['WatchSky.open']);
  });

  it('leaves use cases as they are without a tracer', async () => {
    const built = new Container({ defaultScope: 'Singleton' });
    coreBinder(built)(PlanJourney);
    const useCase = built.get(PlanJourney);
    expect(Object.hasOwn(useCase, 'execute')).toBe(false);
    await expect(useCase.execute({ outcome: 'ok' })).resolves.toBe('planned');
    expect(tracing.spans()).toEqual([]);
  });
});
