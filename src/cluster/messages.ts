// What a cluster primary (cluster-primary.ts) and its workers (server.ts) say to each other over
// the IPC channel node:cluster gives them: every message of the service's three conversations (the
// shutdown, the metrics scrape, the admission of requests), each naming its type. Node's own
// cluster messages travel apart from these.
import type { Registry } from 'prom-client';
import type { Refusal, RequestCost, Waited } from './admission-terms';

/** The primary asks a serving worker to stop as it would on `signal`: finish the requests in flight, then exit. */
export interface ShutdownRequest {
  readonly type: 'shutdown';
  readonly signal: NodeJS.Signals;
}

/** The primary asks a worker for its metrics, at each scrape. */
export interface MetricsAsk {
  readonly type: 'metrics-ask';
  readonly id: number;
}

/** The primary says a worker's request runs (having waited `waited`) or is refused. */
export type AdmissionAnswer = { readonly type: 'admission'; readonly id: number } & AdmissionOutcome;

export type AdmissionOutcome =
  { readonly entry: 'running'; readonly waited: Waited } | { readonly entry: 'refused'; readonly refusal: Refusal };

/** Every message a primary sends its workers. */
export type PrimaryMessage = ShutdownRequest | MetricsAsk | AdmissionAnswer;

/** A worker tells its primary that it has closed its listener (the requests in flight still run). */
export interface StoppedAccepting {
  readonly type: 'stopped-accepting';
}

/** One process's metrics as registry.getMetricsAsJSON() gives them, which prom-client's aggregate() takes. */
export type ProcessMetrics = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/** A worker's metrics, or why it could not collect them (`failed`: the error's message). */
export type MetricsAnswer =
  | { readonly type: 'metrics'; readonly id: number; readonly metrics: ProcessMetrics }
  | { readonly type: 'metrics'; readonly id: number; readonly failed: string };

/** A worker asks for a request to run, or says it is done or gave up waiting. */
export interface AdmissionAsk {
  readonly type: 'admission';
  readonly op: 'enter' | 'leave';
  readonly id: number;
  readonly accountId?: string;
  /** What the request costs (enter). */
  readonly cost?: RequestCost;
}

/** Every message a worker sends its primary. */
export type WorkerMessage = StoppedAccepting | MetricsAnswer | AdmissionAsk;

/** A message of the given `type`: every message between a primary and its workers names its type. */
function hasType<T extends string>(message: unknown, type: T): message is { readonly type: T } {
  return typeof message === 'object' && message !== null && 'type' in message && message.type === type;
}

/** A message of the given `type` answering or asking by a numeric id. */
function hasTypeAndId<T extends string>(
  message: unknown,
  type: T,
): message is { readonly type: T; readonly id: number } {
  return hasType(message, type) && 'id' in message && typeof message.id === 'number';
}

export function isShutdownRequest(message: unknown): message is ShutdownRequest {
  return hasType(message, 'shutdown') && 'signal' in message && typeof message.signal === 'string';
}

export function isMetricsAsk(message: unknown): message is MetricsAsk {
  return hasTypeAndId(message, 'metrics-ask');
}

export function isAdmissionAnswer(message: unknown): message is AdmissionAnswer {
  return hasTypeAndId(message, 'admission') && 'entry' in message;
}

export function isStoppedAccepting(message: unknown): message is StoppedAccepting {
  return hasType(message, 'stopped-accepting');
}

export function isMetricsAnswer(message: unknown): message is MetricsAnswer {
  return hasTypeAndId(message, 'metrics') && ('metrics' in message || 'failed' in message);
}

export function isAdmissionAsk(message: unknown): message is AdmissionAsk {
  return hasTypeAndId(message, 'admission') && 'op' in message && (message.op === 'enter' || message.op === 'leave');
}
