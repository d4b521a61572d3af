// An evenly paced client, for the quiet account of the noisy-neighbour load. autocannon keeps a rate
// by letting each connection send its share of a second back to back as the second starts, then
// wait: a quiet load of 50 a second on 4 connections was 4 bursts of 12 or 13 requests each second,
// and its p99 then depended on where its bursts fell against the noisy account's (a neighbour sending
// only cheap reads at its rate limit, in the same bursts, took the quiet read's p99 from 11 to 63 ms).
// An integrator's ordinary traffic is spread over the second: here one request every 1/perSecond s.
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { type Figures, headersOf, type Load } from './measure';

/** `load` at `load.perSecond`, evenly spaced, on at most `connections` kept-alive sockets, after a warm-up. */
export async function measurePaced(
  baseUrl: string,
  load: Load,
  connections: number,
  seconds: number,
): Promise<Figures> {
  const { perSecond } = load;
  if (perSecond === undefined) throw new Error(`${load.name}: a paced load needs perSecond`);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  try {
    await sendPaced(baseUrl, load, perSecond, agent, Math.min(3, seconds));
    const latencies: number[] = [];
    const failures = await sendPaced(baseUrl, load, perSecond, agent, seconds, latencies);
    latencies.sort((a, b) => a - b);
    // To a tenth of a millisecond: a quiet p99 of 5 ms against 11 is a ratio that whole
    // milliseconds would move by a tenth either way.
    const at = (share: number) =>
      Math.round(10 * latencies[Math.min(latencies.length - 1, Math.floor(share * latencies.length))]) / 10;
    return {
      requestsPerSecond: Math.round(latencies.length / seconds),
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      failures,
    };
  } finally {
    agent.destroy();
  }
}

/**
 * Sends one request every 1/`perSecond` s for `seconds`, each timed from its sending to the end of its
 * answer (a request waiting for a free socket waits on the clock), into `latencies`; the failures.
 */
async function sendPaced(
  baseUrl: string,
  load: Load,
  perSecond: number,
  agent: Agent,
  seconds: number,
  latencies: number[] = [],
): Promise<number> {
  const interval = 1000 / perSecond;
  const count = Math.round(seconds * perSecond);
  const body = load.body === undefined ? undefined : JSON.stringify(load.body);
  const headers = headersOf(load);
  const start = performance.now();
  let failures = 0;
  const sent: Promise<void>[] = [];
  for (let n = 0; n < count; n++) {
    const due = start + n * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    sent.push(
      once(baseUrl, load, agent, headers, body).then(
        ({ status, ms }) => {
          if (status >= 200 && status < 300) latencies.push(ms);
          else failures++;
        },
        () => {
          failures++;
        },
      ),
    );
  }
  await Promise.all(sent);
  return failures;
}

function once(
  baseUrl: string,
  load: Load,
  agent: Agent,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<{ status: number; ms: number }> {
  const began = performance.now();
  return new Promise((resolve, reject) => {
    const sending = request(new URL(load.path, baseUrl), { method: load.method, headers, agent }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - began }));
      res.once('error', reject);
    });
    sending.once('error', reject);
    sending.end(body);
  });
}
