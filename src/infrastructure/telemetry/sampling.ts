import {
  type Context,
  createContextKey,
  isSpanContextValid,
  ROOT_CONTEXT,
  type SpanContext,
  trace,
  TraceFlags,
} from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  SamplingDecision,
  type SamplingResult,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';

type Environment = Readonly<Record<string, string | undefined>>;

/** Marks a parent context as one the service kept itself, not one a caller sent. */
const KEPT_BY_THE_SERVICE = createContextKey('tns: a trace context the service kept itself');

/**
 * The context to start a span in whose parent is a trace context the service kept with its own
 * data (an event's writer, read back by the process delivering it): a span there follows that
 * parent's decision, as a child in the same process would, though the parent is remote.
 */
export function keptTraceContext(parent: SpanContext): Context {
  return trace.setSpanContext(ROOT_CONTEXT.setValue(KEPT_BY_THE_SERVICE, true), parent);
}

/**
 * The service's own sampler (OTEL_TRACES_SAMPLER unset, or `traceidratio`): a span whose parent is
 * in this process, or kept by the service (keptTraceContext), follows its parent; every other span,
 * a root or a caller's child, is sampled by a random draw of the service's own at `ratio`. The
 * caller's trace id is continued (the trace stays joined), but nothing the caller sends decides:
 * not its `sampled` flag, and not its trace id's value, which a client could choose low to pass a
 * trace-id ratio.
 */
export class ServiceDrawSampler implements Sampler {
  constructor(
    private readonly ratio: number,
    private readonly draw: () => number = Math.random,
  ) {}

  shouldSample(context: Context): SamplingResult {
    const parent = trace.getSpanContext(context);
    const followed =
      parent !== undefined &&
      isSpanContextValid(parent) &&
      (!parent.isRemote || context.getValue(KEPT_BY_THE_SERVICE) === true);
    const sampled = followed ? (parent.traceFlags & TraceFlags.SAMPLED) !== 0 : this.draw() < this.ratio;
    return { decision: sampled ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD };
  }

  toString(): string {
    return `ServiceDrawSampler{${this.ratio}}`;
  }
}

/**
 * The sampler OTEL_TRACES_SAMPLER names (docs/operations.md, "Sampling"; docs/decisions.md,
 * "Traces"). Unset, `traceidratio` and a name the service does not know all draw for
 * themselves (ServiceDrawSampler), at OTEL_TRACES_SAMPLER_ARG for `traceidratio`, 1 otherwise;
 * `always_on` and `always_off` are OpenTelemetry's; the `parentbased_*` ones, OpenTelemetry's too,
 * follow a caller's decision, for a service behind a proxy that makes that decision itself.
 */
export function samplerFromEnv(env: Environment, warn: (message: string) => void): Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() ?? '';
  const ratio = () => samplerRatio(env.OTEL_TRACES_SAMPLER_ARG, warn);
  switch (name) {
    case '':
      return new ServiceDrawSampler(1);
    case 'traceidratio':
      return new ServiceDrawSampler(ratio());
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      // Roots only: their trace ids are the service's own, random.
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      warn(`OTEL_TRACES_SAMPLER=${name} is not a sampler the service offers; every trace is sampled by its own draw`);
      return new ServiceDrawSampler(1);
  }
}

/** OTEL_TRACES_SAMPLER_ARG as a ratio from 0 to 1; 1 when unset or out of range, as OpenTelemetry's SDK reads it. */
function samplerRatio(text: string | undefined, warn: (message: string) => void): number {
  if (text === undefined || text.trim() === '') return 1;
  const ratio = Number(text);
  if (Number.isFinite(ratio) && ratio >= 0 && ratio <= 1) return ratio;
  warn(`OTEL_TRACES_SAMPLER_ARG=${text} is not a ratio from 0 to 1; every trace is sampled`);
  return 1;
}
