// The event streams' part of `npm run bench`: how many streams one process holds, its resident
// memory with them open, and how long after a write's answer its event reaches each stream
// watching it. Streams are read by the `eventsource` package, as the tests read them.
import { performance } from 'node:perf_hooks';
import { EventSource, type EventSourceFetchInit } from 'eventsource';
import { DEFAULT_STREAM_LIMITS } from '../../src/interfaces/http/event-stream/event-streams';
import { waitFor } from '../../tests/support/wait-for';
import { residentMiB, type Started } from './processes';
import { call, signUpMany } from './service';

/** The figures of one run; the goals are checked in report.ts. */
export interface StreamFigures {
  readonly streams: number;
  /** The accounts the streams watch, each as many as its key may hold, and the writers writing. */
  readonly accounts: number;
  readonly writers: number;
  /** Streams answered 200 and caught up. */
  readonly caughtUp: number;
  /**
   * Openings refused (503 server_busy, 429) and sent again after their Retry-After: a thousand
   * streams opened at once are more than the instance lets wait, and it sheds some.
   */
  readonly refusedOpenings: number;
  /** The service's resident memory before the streams opened, and with all of them open. */
  readonly residentBeforeMiB: number;
  readonly residentMiB: number;
  readonly writes: number;
  /** Deliveries expected (each write's event to each stream of its account) and received. */
  readonly expected: number;
  readonly delivered: number;
  /** The same event received twice on one stream. */
  readonly duplicates: number;
  /** From the write's answer to the event's arrival on a stream, over every delivery. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

const PLACE = 'Bench Stage';
const RANGE = '2000-01-01T00:00:00Z/2001-01-01T00:00:00Z';
/** EVENT_STREAMS_PER_ACCOUNT's default, so the accounts needed follow from the streams. */
const STREAMS_PER_ACCOUNT = DEFAULT_STREAM_LIMITS.perAccount;
const CONCURRENT_WRITERS = 10;
const DELIVERY_TIMEOUT_MS = 60_000;

export async function measureStreams(
  service: Started,
  { streams = 1_000, writes = 500 }: { streams?: number; writes?: number } = {},
): Promise<StreamFigures> {
  const accountCount = Math.ceil(streams / STREAMS_PER_ACCOUNT);
  const accounts = await signUpMany(service.url, 'stream', accountCount);
  const residentBefore = total(service);
  const query = new URLSearchParams({ location: PLACE, time_range: RANGE });
  const url = `${service.url}/v1/monitor-events?${query.toString()}`;
  /** Per stream: when each event (by its time, unique per write) arrived. */
  const opened: Array<{ account: number; source: EventSource; arrivals: Map<string, number>; caughtUp: boolean }> = [];
  let duplicates = 0;
  const refused = { openings: 0 };
  for (let n = 0; n < streams; n += 1) {
    const account = n % accountCount;
    const auth = accounts[account]?.auth ?? '';
    const source = new EventSource(url, {
      fetch: (input, init) => fetchHonouringRefusals(input, init, auth, refused),
    });
    const stream = { account, source, arrivals: new Map<string, number>(), caughtUp: false };
    source.addEventListener('caught-up', () => (stream.caughtUp = true));
    source.addEventListener('recorded', (message) => {
      const time = String((JSON.parse(message.data) as { time: unknown }).time);
      if (stream.arrivals.has(time)) duplicates += 1;
      else stream.arrivals.set(time, performance.now());
    });
    opened.push(stream);
  }
  try {
    // Short of that in time: the count caught up says how far they got (report.ts holds it to the goal).
    await waitFor(() => opened.every((stream) => stream.caughtUp), {
      what: 'every stream to catch up',
      timeoutMs: 60_000,
      intervalMs: 20,
    }).catch(() => undefined);
    const caughtUp = opened.filter((stream) => stream.caughtUp).length;
    const resident = total(service);

    // Each write an arrival at a time of its own, to one account in turn; its answer's moment kept.
    const answered = new Map<string, number>();
    const writesOf = new Array<number>(accountCount).fill(0);
    let next = 0;
    const writer = async () => {
      while (next < writes) {
        const n = next++;
        const time = new Date(Date.UTC(2000, 0, 1) + n * 60_000).toISOString().replace('.000Z', 'Z');
        await call(service.url, accounts[n % accountCount]?.auth, 'POST', '/api/v1/travel', {
          destination_time: time,
          location: PLACE,
        });
        answered.set(time, performance.now());
        writesOf[n % accountCount] = (writesOf[n % accountCount] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENT_WRITERS }, writer));
    const expectedOf = (stream: { readonly account: number }) => writesOf[stream.account] ?? 0;
    const expected = opened.reduce((sum, stream) => sum + expectedOf(stream), 0);
    // Short of that in time: the delivered count says how far they got.
    await waitFor(() => opened.every((stream) => stream.arrivals.size >= expectedOf(stream)), {
      what: 'every delivery',
      timeoutMs: DELIVERY_TIMEOUT_MS,
      intervalMs: 20,
    }).catch(() => undefined);
    const delays = opened
      .flatMap((stream) => [...stream.arrivals].map(([time, at]) => at - (answered.get(time) ?? at)))
      .sort((x, y) => x - y);
    return {
      streams,
      accounts: accountCount,
      writers: CONCURRENT_WRITERS,
      caughtUp,
      refusedOpenings: refused.openings,
      residentBeforeMiB: residentBefore,
      residentMiB: resident,
      writes,
      expected,
      delivered: delays.length,
      duplicates,
      p50Ms: percentile(delays, 0.5),
      p99Ms: percentile(delays, 0.99),
      maxMs: Math.round((delays.at(-1) ?? 0) * 10) / 10,
    };
  } finally {
    for (const stream of opened) stream.source.close();
  }
}

/**
 * Opens a stream as a client that honours a refusal does: answered 503 or 429, it asks again after
 * the answer's Retry-After (with up to half of it again, so the refused do not all return at once).
 * EventSource alone would give up, as the standard says of any answer but 200.
 */
async function fetchHonouringRefusals(
  input: string | URL,
  init: EventSourceFetchInit,
  auth: string,
  refused: { openings: number },
): Promise<Response> {
  for (;;) {
    const response = await fetch(input, { ...init, headers: { ...init.headers, Authorization: auth } });
    if (response.status !== 503 && response.status !== 429) return response;
    refused.openings += 1;
    await response.body?.cancel();
    const seconds = Number(response.headers.get('retry-after')) || 1;
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000 * (1 + Math.random() / 2)));
  }
}

function total(service: Started): number {
  return residentMiB(service.child.pid ?? 0).reduce((sum, each) => sum + each, 0);
}

function percentile(sorted: readonly number[], share: number): number {
  if (sorted.length === 0) return 0;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] * 10) / 10;
}
