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

export function isShutdownRequest(message: unknown): message is ShutdownRequest {
  return (
    typeof message === 'object' &&
    message !== null &&
    'type' in message &&
    message.type === 'shutdown' &&
    'signal' in message &&
    typeof message.signal === 'string'
  );
}

export function isWorkerReport(message: unknown): message is WorkerReport {
  return typeof message === 'object' && message !== null && 'type' in message && message.type === 'stopped-accepting';
}
