// What a cluster primary (cluster-primary.ts) and its workers (server.ts) say to each other over
// the IPC channel node:cluster gives them. Node's own cluster messages travel apart from these.

/** The primary asks a serving worker to stop as it would on `signal`: finish the requests in flight, then exit. */
export interface ShutdownRequest {
  readonly type: 'shutdown';
  readonly signal: NodeJS.Signals;
}

/** A worker tells its primary that it has closed its listener (the requests in flight still run). */
export interface WorkerReport {
  readonly type: 'stopped-accepting';
}

/** A message of the given `type`: every message between a primary and its workers names its type. */
export function hasType<T extends string>(message: unknown, type: T): message is { readonly type: T } {
  return typeof message === 'object' && message !== null && 'type' in message && message.type === type;
}

export function isShutdownRequest(message: unknown): message is ShutdownRequest {
  return hasType(message, 'shutdown') && 'signal' in message && typeof message.signal === 'string';
}

export function isWorkerReport(message: unknown): message is WorkerReport {
  return hasType(message, 'stopped-accepting');
}
