// Webhook deliveries (docs/performance.md, "Webhook deliveries"), on a fresh one-worker service with
// a local receiver answering 204: how long from a write's answer to its delivery, how many
// deliveries a second, what an endpoint costs the writes of its account, and every message
// delivered across a kill -9 of the service. On the PostgreSQL server, then on the embedded database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drive, measure, type Load } from './measure';
import type { Started } from './processes';
import type { Verdict } from './report';
import { call, signUp, startService } from './service';
import { WebhookReceiver } from './webhook-receiver';

/** The step's name on a database: `BENCH_ONLY` selects it ('webhook deliveries' both). */
export function webhookLoad(databaseUrl: string): string {
  return `webhook deliveries (${databaseUrl ? 'PostgreSQL server' : 'embedded database'})`;
}
/** The latency's writes: one account, evenly paced. */
const PACED_PER_SECOND = 20;
/** The throughput's writes: this many accounts with an endpoint each, written to at once. */
const BURST_ACCOUNTS = 8;
const CONNECTIONS = 50;
/** Writes of the kill -9 step at most, and how many of their messages arrive before the kill. */
const KILL_WRITES = 3_000;
const KILL_AFTER = 150;
/** A delivery's longest wait before the step gives up on it. */
const DRAIN_AT_MOST_MS = 180_000;
const STEP_AT_MOST_MS = 600_000;
const GOALS = { p95Ms: 1_500, perSecond: 200, withEndpoint: 0.85 };

export interface WebhookFigures {
  readonly database: 'server' | 'embedded';
  /** From a write's answer to its message's first arrival, ms; `missing`: never arrived. */
  readonly latency: { readonly p50: number; readonly p95: number; readonly max: number; readonly missing: number };
  /**
   * Messages of the burst's writes; deliveries a second from the first arrival to the last, and from
   * the writes' end to the last (the backlog's, with the two cores no longer shared with the writes).
   */
  readonly burst: {
    readonly writes: number;
    readonly delivered: number;
    readonly perSecond: number;
    readonly drainPerSecond: number;
  };
  /** POST /v1/anchors at 50 connections, requests a second: without an endpoint, with one, in turn. */
  readonly writes: { readonly without: readonly number[]; readonly withEndpoint: readonly number[] };
  /** Writes acknowledged around a kill -9 of the service; their messages arrived before it, and in all. */
  readonly killed: {
    readonly writes: number;
    readonly deliveredAtKill: number;
    readonly delivered: number;
    readonly duplicates: number;
  };
}

export async function measureWebhooks(databaseUrl: string, seconds: number): Promise<WebhookFigures> {
  const receiver = await WebhookReceiver.start();
  const dataDir = databaseUrl ? null : mkdtempSync(join(tmpdir(), 'tns-bench-webhooks-'));
  const start = () =>
    startService(databaseUrl, 1, {
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'on', ...(dataDir && { DATA_DIR: dataDir }) },
    });
  let service = await start();
  try {
    const hooked = async (who: string, path: string) => {
      const account = await signUp(service.url, `webhooks-${who}`);
      await call(service.url, account.auth, 'POST', '/v1/webhook-endpoints', {
        url: `${receiver.url}${path}`,
        event_types: ['event.recorded'],
      });
      return account;
    };
    const latency = await pacedLatency(service, receiver, await hooked('paced', '/paced'), seconds);
    console.error(`measured ${webhookLoad(databaseUrl)}: p95 ${latency.p95} ms from a write's answer to its delivery`);
    const burstAccounts = [];
    for (let n = 0; n < BURST_ACCOUNTS; n++) burstAccounts.push(await hooked(`burst-${n}`, '/burst'));
    const burst = await burstRate(service, receiver, burstAccounts, seconds);
    console.error(`measured ${webhookLoad(databaseUrl)}: ${burst.drainPerSecond} deliveries a second`);
    const writes = await bounded(
      'the writes beside an endpoint',
      writesBeside(
        service,
        receiver,
        await signUp(service.url, 'webhooks-none'),
        await hooked('load', '/load'),
        seconds,
      ),
    );
    console.error(`measured ${webhookLoad(databaseUrl)}: the writes beside an endpoint`);
    const killed = await bounded(
      'the kill -9 and the start after it',
      acrossKill(service, receiver, await hooked('killed', '/killed'), async () => (service = await start())),
    );
    return { database: databaseUrl ? 'server' : 'embedded', latency, burst, writes, killed };
  } finally {
    await service.stop();
    await receiver.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One anchor every 1/PACED_PER_SECOND s, each timed from its answer to its message's arrival. */
async function pacedLatency(
  service: Started,
  receiver: WebhookReceiver,
  account: { readonly auth: string },
  seconds: number,
): Promise<WebhookFigures['latency']> {
  const answeredAt = new Map<string, number>();
  const count = PACED_PER_SECOND * seconds;
  const started = Date.now();
  const sent: Promise<void>[] = [];
  for (let n = 0; n < count; n++) {
    const wait = started + (n * 1000) / PACED_PER_SECOND - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const description = `paced ${started} ${n}`;
    sent.push(
      call(service.url, account.auth, 'POST', '/v1/anchors', { description }).then(() => {
        answeredAt.set(`Anchor set: ${description}`, Date.now());
      }),
    );
  }
  await Promise.all(sent);
  await receiver.waitFor('/paced', count, DRAIN_AT_MOST_MS);
  const latencies = receiver
    .arrivals('/paced')
    .flatMap(({ description, at }) => {
      const answered = answeredAt.get(description);
      return answered === undefined ? [] : [at - answered];
    })
    .sort((a, b) => a - b);
  const at = (share: number) => latencies[Math.min(latencies.length - 1, Math.floor(share * latencies.length))] ?? NaN;
  return { p50: at(0.5), p95: at(0.95), max: at(1), missing: count - latencies.length };
}

/** Anchors written at once by several accounts with an endpoint each, then their deliveries drained. */
async function burstRate(
  service: Started,
  receiver: WebhookReceiver,
  accounts: readonly { readonly auth: string }[],
  seconds: number,
): Promise<WebhookFigures['burst']> {
  const load: Load = {
    name: 'POST /v1/anchors of accounts with an endpoint',
    method: 'POST',
    path: '/v1/anchors',
    body: { description: 'Burst anchor' },
    rotate: accounts.map((account) => account.auth),
  };
  const result = await drive(service.url, load, CONNECTIONS, seconds);
  const writesEnded = Date.now();
  const writes = result['2xx'];
  await receiver.waitFor('/burst', writes, DRAIN_AT_MOST_MS);
  const arrivals = receiver.arrivals('/burst');
  const rate = (from: number, count: number) =>
    Math.round((count * 1000) / Math.max(1, (arrivals.at(-1)?.at ?? from) - from));
  const afterWrites = arrivals.filter((arrival) => arrival.at > writesEnded).length;
  return {
    writes,
    delivered: arrivals.length,
    perSecond: rate(arrivals[0]?.at ?? writesEnded, arrivals.length - 1),
    drainPerSecond: rate(writesEnded, afterWrites),
  };
}

/**
 * POST /v1/anchors at 50 connections of an account without an endpoint and of one with an endpoint,
 * in turn, twice: what its messages cost an account's writes, their deliveries running beside them.
 */
async function writesBeside(
  service: Started,
  receiver: WebhookReceiver,
  without: { readonly auth: string },
  withEndpoint: { readonly auth: string },
  seconds: number,
): Promise<WebhookFigures['writes']> {
  const anchors = (auth: string): Load => ({
    name: 'POST /v1/anchors',
    method: 'POST',
    path: '/v1/anchors',
    headers: { authorization: auth },
    body: { description: 'Bench anchor' },
  });
  const figures = { without: [] as number[], withEndpoint: [] as number[] };
  for (let round = 0; round < 2; round++) {
    figures.without.push((await measure(service.url, anchors(without.auth), CONNECTIONS, seconds)).requestsPerSecond);
    figures.withEndpoint.push(
      (await measure(service.url, anchors(withEndpoint.auth), CONNECTIONS, seconds)).requestsPerSecond,
    );
    // The backlog delivered before the next round, so each measures the writes and their own deliveries only.
    await receiver.waitQuiet(3_000, DRAIN_AT_MOST_MS);
  }
  return figures;
}

/**
 * Anchors written 10 at a time until a SIGKILL of the service, sent once KILL_AFTER messages have
 * arrived, so deliveries are in flight and messages wait; then a start on the same database: has
 * every acknowledged write's message arrived, and how many twice?
 */
async function acrossKill(
  service: Started,
  receiver: WebhookReceiver,
  account: { readonly auth: string },
  restart: () => Promise<Started>,
): Promise<WebhookFigures['killed']> {
  const duplicatesBefore = receiver.duplicates();
  const acknowledged = new Set<string>();
  let killed = false;
  const writing = (async () => {
    for (let n = 0; n < KILL_WRITES && !killed; n += 10)
      await Promise.allSettled(
        Array.from({ length: 10 }, async (_, k) => {
          const description = `killed ${n + k}`;
          await call(service.url, account.auth, 'POST', '/v1/anchors', { description });
          acknowledged.add(`Anchor set: ${description}`);
        }),
      );
  })();
  await receiver.waitFor('/killed', KILL_AFTER, DRAIN_AT_MOST_MS);
  if (service.child.exitCode !== null || service.child.signalCode !== null)
    throw new Error(
      `the service ended by itself (${service.child.exitCode ?? service.child.signalCode}) before its kill`,
    );
  const exited = new Promise((resolve) => service.child.once('exit', resolve));
  killed = true;
  service.child.kill('SIGKILL');
  await exited;
  await writing;
  const deliveredAtKill = receiver.arrivals('/killed').length;
  await restart();
  // Each acknowledged write's own message: a write cut by the kill may have committed, and its
  // message arrives too, so a count of arrivals would not tell.
  await receiver.waitForEach('/killed', acknowledged, DRAIN_AT_MOST_MS);
  const arrived = new Set(receiver.arrivals('/killed').map((arrival) => arrival.description));
  return {
    writes: acknowledged.size,
    deliveredAtKill,
    delivered: [...acknowledged].filter((description) => arrived.has(description)).length,
    duplicates: receiver.duplicates() - duplicatesBefore,
  };
}

export function webhookVerdicts(figures: readonly WebhookFigures[]): Verdict[] {
  const server = figures.find((each) => each.database === 'server');
  const ratio = server ? median(server.writes.withEndpoint) / Math.max(1, median(server.writes.without)) : null;
  return [
    {
      goal: `from a write's answer to its webhook delivery, p95 ≤ ${GOALS.p95Ms} ms (PostgreSQL server)`,
      figure: server ? `${server.latency.p95} ms, ${server.latency.missing} never delivered` : 'not measured',
      met: !!server && server.latency.p95 <= GOALS.p95Ms && server.latency.missing === 0,
    },
    {
      goal: `≥ ${GOALS.perSecond} webhook deliveries a second (PostgreSQL server)`,
      figure: server
        ? `${server.burst.drainPerSecond} a second once the writes stopped ` +
          `(${server.burst.perSecond} from the first arrival), ` +
          `${server.burst.delivered} of ${server.burst.writes}`
        : 'not measured',
      // More may arrive than were counted: writes still in flight when the load stopped may have committed.
      met: !!server && server.burst.drainPerSecond >= GOALS.perSecond && server.burst.delivered >= server.burst.writes,
    },
    {
      goal: `POST /v1/anchors of an account with an endpoint ≥ ${GOALS.withEndpoint} × without (PostgreSQL server)`,
      figure: ratio === null ? 'not measured' : ratio.toFixed(2),
      met: ratio !== null && ratio >= GOALS.withEndpoint,
    },
    ...figures.map((each) => ({
      goal: `every message delivered across a kill -9 of the service (${where(each)})`,
      figure: `${each.killed.delivered} of ${each.killed.writes}, ${each.killed.duplicates} twice`,
      met: each.killed.delivered === each.killed.writes,
    })),
  ];
}

/** A step that has not ended within STEP_AT_MOST_MS ends the run, rather than hold it unseen. */
function bounded<T>(what: string, step: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`webhook deliveries: ${what} did not end within 10 minutes`)),
      STEP_AT_MOST_MS,
    );
  });
  return Promise.race([step, late]).finally(() => clearTimeout(timer));
}

function where(figures: WebhookFigures): string {
  return figures.database === 'server' ? 'PostgreSQL server' : 'embedded database';
}

export function webhookLines(figures: readonly WebhookFigures[]): string[] {
  return figures.flatMap((each) => [
    '',
    `Webhook deliveries (${where(each)}): from a write's answer to its delivery p50 ${each.latency.p50} ms, ` +
      `p95 ${each.latency.p95} ms, max ${each.latency.max} ms (${PACED_PER_SECOND} writes a second); ` +
      `${each.burst.drainPerSecond} deliveries a second once the writes stopped, ${each.burst.perSecond} from the ` +
      `first (${each.burst.delivered} of ${each.burst.writes} from ` +
      `${BURST_ACCOUNTS} accounts at ${CONNECTIONS} connections); POST /v1/anchors at ` +
      `${CONNECTIONS} connections ${each.writes.without.join(' and ')} req/s without an endpoint, ` +
      `${each.writes.withEndpoint.join(' and ')} with one; across a kill -9, ${each.killed.delivered} of ` +
      `${each.killed.writes} acknowledged writes' messages delivered (${each.killed.deliveredAtKill} before it), ` +
      `${each.killed.duplicates} twice.`,
  ]);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length
    ? (sorted[Math.floor((sorted.length - 1) / 2)] + sorted[Math.ceil((sorted.length - 1) / 2)]) / 2
    : 0;
}
