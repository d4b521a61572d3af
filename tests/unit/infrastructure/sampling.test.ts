// The service decides which traces it samples (docs/decisions.md, "Traces"): a caller's
// trace id is continued, but neither its sampled flag nor its trace id's value sways the draw,
// unless an operator names a parent-based sampler (a trusted proxy decides).
import { ROOT_CONTEXT, type SpanContext, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { SamplingDecision, type Sampler } from '@opentelemetry/sdk-trace';
import { keptTraceContext, samplerFromEnv, ServiceDrawSampler } from '../../../src/infrastructure/telemetry/sampling';

/** The lowest trace id there is: what a client would send to pass a trace-id ratio. */
const LOW_TRACE = '00000000000000000000000000000001';
const SPAN = 'b7ad6b7169203331';

const parent = (flags: TraceFlags, isRemote: boolean): SpanContext => ({
  traceId: LOW_TRACE,
  spanId: SPAN,
  traceFlags: flags,
  isRemote,
});

function sampled(sampler: Sampler, parentContext = ROOT_CONTEXT): boolean {
  const decision = sampler.shouldSample(parentContext, LOW_TRACE, 'GET /healthz', SpanKind.SERVER, {}, []).decision;
  return decision === SamplingDecision.RECORD_AND_SAMPLED;
}

/** How many of `n` spans `sampler` samples under `parentContext`. */
function sampledOf(sampler: Sampler, n: number, parentContext = ROOT_CONTEXT): number {
  return Array.from({ length: n }, () => sampled(sampler, parentContext)).filter(Boolean).length;
}

describe('the service draw', () => {
  const callerSampled = trace.setSpanContext(ROOT_CONTEXT, parent(TraceFlags.SAMPLED, true));
  const callerNotSampled = trace.setSpanContext(ROOT_CONTEXT, parent(TraceFlags.NONE, true));

  it("draws for a caller's span as for a root, whatever its flag and trace id", () => {
    const draws = [0.05, 0.5, 0.05, 0.5];
    const sampler = new ServiceDrawSampler(0.1, () => draws.shift() ?? 1);
    expect(sampled(sampler, callerSampled)).toBe(true);
    expect(sampled(sampler, callerSampled)).toBe(false);
    expect(sampled(sampler, callerNotSampled)).toBe(true);
    expect(sampled(sampler)).toBe(false);
  });

  it('follows a parent in this process, and a trace context the service kept', () => {
    const never = new ServiceDrawSampler(0, () => 0.5);
    expect(sampled(never, trace.setSpanContext(ROOT_CONTEXT, parent(TraceFlags.SAMPLED, false)))).toBe(true);
    expect(sampled(never, keptTraceContext(parent(TraceFlags.SAMPLED, true)))).toBe(true);
    const always = new ServiceDrawSampler(1, () => 0.5);
    expect(sampled(always, trace.setSpanContext(ROOT_CONTEXT, parent(TraceFlags.NONE, false)))).toBe(false);
  });

  it("keeps the kept context's ids: the span is its child", () => {
    const kept = keptTraceContext(parent(TraceFlags.SAMPLED, true));
    expect(trace.getSpanContext(kept)).toMatchObject({ traceId: LOW_TRACE, spanId: SPAN, isRemote: true });
  });
});

describe('OTEL_TRACES_SAMPLER', () => {
  const callerSampled = trace.setSpanContext(ROOT_CONTEXT, parent(TraceFlags.SAMPLED, true));
  const noWarning = (message: string) => {
    throw new Error(`unexpected warning: ${message}`);
  };

  it.each([
    ['unset', {}],
    ['traceidratio at 1', { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' }],
    ['always_on', { OTEL_TRACES_SAMPLER: 'always_on' }],
    ['parentbased_always_on', { OTEL_TRACES_SAMPLER: 'parentbased_always_on' }],
  ])('%s: every root sampled', (_name, env) => {
    expect(sampledOf(samplerFromEnv(env, noWarning), 50)).toBe(50);
  });

  it('traceidratio: a sampled caller with the lowest trace id is drawn at the ratio, not let through', () => {
    const sampler = samplerFromEnv({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }, noWarning);
    // 1,000 draws at 0.1: 100 expected; 200 or more has a chance below 1e-20.
    const count = sampledOf(sampler, 1_000, callerSampled);
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThan(200);
  });

  it("parentbased_traceidratio: the caller's decision is followed (a trusted proxy's)", () => {
    const sampler = samplerFromEnv(
      { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' },
      noWarning,
    );
    expect(sampledOf(sampler, 50, callerSampled)).toBe(50);
    expect(sampledOf(sampler, 50)).toBe(0);
  });

  it('always_off samples nothing', () => {
    expect(sampledOf(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'always_off' }, noWarning), 50, callerSampled)).toBe(0);
  });

  it.each([
    [{ OTEL_TRACES_SAMPLER: 'jaeger_remote' }, /jaeger_remote is not a sampler/],
    [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' }, /1\.5 is not a ratio/],
    [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: 'half' }, /half is not a ratio/],
  ])('%j: a warning, and the service draws for every trace', (env, warning) => {
    const warnings: string[] = [];
    const sampler = samplerFromEnv(env, (message) => warnings.push(message));
    expect(warnings).toEqual([expect.stringMatching(warning)]);
    expect(sampler).toBeInstanceOf(ServiceDrawSampler);
    expect(sampledOf(sampler, 50, callerSampled)).toBe(50);
  });
});
