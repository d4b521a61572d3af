import autocannon from 'autocannon';

export interface Load {
  readonly name: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  /** A header made fresh for every request (an Idempotency-Key must not repeat). */
  readonly freshHeader?: string;
  /**
   * Authorization headers taken in turn, one per request: many customers writing at once, as the
   * service serves them, rather than one account whose writes queue behind each other.
   */
  readonly rotate?: readonly string[];
  /** The header `rotate` fills: `authorization` unless named. */
  readonly rotateHeader?: string;
  /** Served by the bare Express app (a floor, docs/performance.md) rather than the service. */
  readonly onBare?: boolean;
  /** For a floor: the name of the load it is the floor of (measured whenever that load is). */
  readonly floorOf?: string;
  /**
   * Requests a second over all its connections, for a client that keeps within its limits
   * (autocannon's overallRate); unset, each connection sends its next request on the last's answer.
   */
  readonly perSecond?: number;
}

export interface Figures {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Answers that were not 2xx, and connection errors or timeouts: a run with any is not counted. */
  readonly failures: number;
}

/** Drives `load` with `connections` at once for `seconds`, after a short warm-up that is not counted. */
export async function measure(baseUrl: string, load: Load, connections: number, seconds: number): Promise<Figures> {
  await drive(baseUrl, load, connections, Math.min(3, seconds));
  const result = await drive(baseUrl, load, connections, seconds);
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

/** The headers every request of `load` carries: its own, and the JSON type when it has a body. */
export function headersOf(load: Load): Record<string, string> {
  return { ...(load.body === undefined ? {} : { 'content-type': 'application/json' }), ...load.headers };
}

/** One autocannon run of `load`, no warm-up. */
export function drive(baseUrl: string, load: Load, connections: number, seconds: number): Promise<autocannon.Result> {
  return driveStoppable(baseUrl, load, connections, seconds).result;
}

/** One autocannon run of `load` for at most `seconds`, which `stop` ends sooner (its result then). */
export function driveStoppable(
  baseUrl: string,
  load: Load,
  connections: number,
  seconds: number,
): { readonly result: Promise<autocannon.Result>; stop(): void } {
  let sequence = 0;
  const { freshHeader, rotate, rotateHeader = 'authorization' } = load;
  const perRequest = (request: autocannon.Request): autocannon.Request => {
    sequence += 1;
    const headers = { ...request.headers };
    if (freshHeader) headers[freshHeader] = `bench-${process.pid}-${Date.now()}-${sequence}`;
    if (rotate) headers[rotateHeader] = rotate[sequence % rotate.length];
    return { ...request, headers };
  };
  let instance: autocannon.Instance | undefined;
  const result = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: new URL(load.path, baseUrl).toString(),
        connections,
        duration: seconds,
        method: load.method,
        headers: headersOf(load),
        body: load.body === undefined ? undefined : JSON.stringify(load.body),
        ...((freshHeader || rotate) && { requests: [{ setupRequest: perRequest }] }),
        ...(load.perSecond !== undefined && { overallRate: load.perSecond }),
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
  });
  return { result, stop: () => instance?.stop() };
}

/** Median and range, as the docs give them. */
export function spread(values: readonly number[], digits = 0): string {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  const median = sorted.length % 2 ? sorted[Math.floor(middle)] : (sorted[middle - 1] + sorted[middle]) / 2;
  const show = (value: number) => value.toFixed(digits);
  return `${show(median)} (${show(sorted[0])}–${show(sorted[sorted.length - 1])})`;
}
