// The noisy-neighbour load: one account sending the most expensive requests its limits allow while
// another runs its ordinary mix. The quiet account's p99 is measured alone, then beside the noisy
// one, in the same run on the same fresh service; the goal asks that it at most doubles
// (docs/performance.md, "One account beside a noisy one"). The noisy load is sent from a process of
// its own (noisy-load.ts), as another client's would be.
import { fork } from 'node:child_process';
import { join } from 'node:path';
import type { Figures, Load } from './measure';
import { measurePaced } from './paced';
import type { NoisyPlan, NoisyReport, StreamChurn } from './noisy-load';
import type { SignUpPlan } from './sign-up-load';
import { DEFAULT_STREAM_LIMITS } from '../../src/interfaces/http/event-stream/event-streams';
import { call, signUp, startService } from './service';
import { PARADOX_RANGE, seedDisplacedEvents, seedEvents } from './seed';

export const NOISY_NEIGHBOUR = 'one account beside a noisy one';
/** What the quiet account sends, evenly paced on connections of its own, as a small integrator would. */
const QUIET_CONNECTIONS = 4;
/** Both accounts keep within the default rate limit (100 a second): the quiet one at half of it. */
const RATE_LIMIT_PER_SECOND = 100;
const QUIET_PER_SECOND = RATE_LIMIT_PER_SECOND / 2;
/** The noisy account's connections, over its loads: the bench's 50. */
const NOISY_CONNECTIONS = 50;
/** Events of the noisy account: 500 at each of its 1,000 places, so a scan fills its largest page. */
const NOISY_EVENTS = 500_000;
/** What the noisy account sends: its three kinds of request, and its streams. */
const NOISY_LOAD_NAMES = ['check-paradox', 'monitor-paradox', 'scan-events', 'streams'];
/**
 * BENCH_NOISY_LOADS=<names>: only these of NOISY_LOAD_NAMES (all unless set), to see which of them
 * the quiet account waits for. The goal is read only beside all of them.
 */
const NOISY_LOADS = process.env.BENCH_NOISY_LOADS?.split(',').map((name) => name.trim());
for (const name of NOISY_LOADS ?? [])
  if (!NOISY_LOAD_NAMES.includes(name))
    throw new Error(`BENCH_NOISY_LOADS: no noisy load ${name}; they are ${NOISY_LOAD_NAMES.join(', ')}`);
const sends = (name: string) => NOISY_LOADS === undefined || NOISY_LOADS.includes(name);

export interface NoisyNeighbourFigures {
  /** Per quiet load: its figures alone, then beside the noisy account. */
  readonly quiet: readonly { readonly load: string; readonly alone: Figures; readonly beside: Figures }[];
  /** The noisy account's answers over the run: successes, and refusals by its limits (429, or 503 for a stream). */
  readonly noisy: { readonly ok: number; readonly refused: number };
  /** The noisy account's loads it sent (`streams` for its streams), and those left out (BENCH_NOISY_LOADS). */
  readonly noisyLoads: { readonly sent: readonly string[]; readonly left: readonly string[] };
}

/**
 * On a fresh one-worker service with the default limits (the rate limit included, which the other
 * loads lift): the noisy account's loads run for `seconds` plus a warm-up while each quiet load is
 * measured in turn.
 */
export async function measureNoisyNeighbour(databaseUrl: string, seconds: number): Promise<NoisyNeighbourFigures> {
  const service = await startService(databaseUrl, 1, { env: { RATE_LIMIT_PER_SECOND: String(RATE_LIMIT_PER_SECOND) } });
  try {
    const quiet = await signUp(service.url, 'quiet');
    const noisy = await signUp(service.url, 'noisy');
    const crowded = String(
      (
        await call(service.url, noisy.auth, 'POST', '/v1/timelines', {
          name: 'Crowded timeline',
          destination_time: '1815-06-18T11:00:00Z',
        })
      ).id,
    );
    console.error('seeding the noisy account ...');
    await seedDisplacedEvents(databaseUrl, noisy.id, crowded);
    await seedEvents(databaseUrl, noisy.id, { events: NOISY_EVENTS });
    const quietLoads: Load[] = [
      {
        name: 'GET /timelines',
        method: 'GET',
        path: '/timelines',
        headers: { authorization: quiet.auth },
        perSecond: QUIET_PER_SECOND,
      },
      {
        name: 'POST /v1/anchors',
        method: 'POST',
        path: '/v1/anchors',
        headers: { authorization: quiet.auth },
        body: { description: 'Quiet anchor' },
        perSecond: QUIET_PER_SECOND,
      },
    ];
    const noisyLoads = noisyMix(noisy.auth, crowded).filter(({ load }) => sends(load.name));
    const streams = { ...streamChurn(noisy.auth), ...(!sends('streams') && { concurrent: 0 }) };
    const figures = [];
    let ok = 0;
    let refused = 0;
    for (const load of quietLoads) {
      const alone = await measurePaced(service.url, load, QUIET_CONNECTIONS, seconds);
      // The noisy loads start first and run past the quiet one's warm-up and measurement.
      const noise = await driveElsewhere({
        url: service.url,
        loads: noisyLoads,
        streams,
        seconds: seconds + Math.min(3, seconds) + 2,
      });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const beside = await measurePaced(service.url, load, QUIET_CONNECTIONS, seconds);
      const answered = await noise.done;
      ok += answered.ok;
      refused += answered.refused;
      figures.push({ load: load.name, alone, beside });
      console.error(`measured ${NOISY_NEIGHBOUR}: ${load.name} p99 ${alone.p99Ms} ms alone, ${beside.p99Ms} ms beside`);
    }
    return {
      quiet: figures,
      noisy: { ok, refused },
      noisyLoads: { sent: NOISY_LOAD_NAMES.filter(sends), left: NOISY_LOAD_NAMES.filter((name) => !sends(name)) },
    };
  } finally {
    await service.stop();
  }
}

/**
 * The noisy account's requests, the costliest its limits allow: paradox checks of a timeline of
 * 10,000 displaced events, a monitored range of all of them, the largest page of the widest scan
 * kept by a fresh Idempotency-Key each time; together at its rate limit, on 50 connections.
 */
function noisyMix(auth: string, crowded: string): { readonly load: Load; readonly connections: number }[] {
  const headers = { authorization: auth };
  const monitored = new URLSearchParams({ timeline_id: crowded, time_range: PARADOX_RANGE, limit: '100' });
  const share = Math.floor(NOISY_CONNECTIONS / 3);
  const perSecond = Math.floor(RATE_LIMIT_PER_SECOND / 3);
  return [
    {
      load: {
        name: 'check-paradox',
        method: 'GET',
        path: `/v1/check-paradox?timeline_id=${crowded}`,
        headers,
        perSecond,
      },
      connections: share,
    },
    {
      load: {
        name: 'monitor-paradox',
        method: 'GET',
        path: `/api/v1/monitor-paradox?${monitored}`,
        headers,
        perSecond,
      },
      connections: share,
    },
    {
      load: {
        name: 'scan-events',
        method: 'POST',
        path: '/api/v1/scan-events',
        headers,
        body: { location: 'Observatory 1', time_range: '1900-01-01T00:00:00Z/2100-01-01T00:00:00Z', limit: 500 },
        freshHeader: 'idempotency-key',
        perSecond,
      },
      connections: NOISY_CONNECTIONS - 2 * share,
    },
  ];
}

/**
 * The noisy account's event streams, as many at once as it may hold (EVENT_STREAMS_PER_ACCOUNT's
 * default), each dropped as soon as its catch-up arrives and opened again: every opening claims a
 * slot, reads the catch-up and gives the slot back.
 */
function streamChurn(auth: string): StreamChurn {
  const watched = new URLSearchParams({
    location: 'Observatory 1',
    time_range: '1900-01-01T00:00:00Z/2100-01-01T00:00:00Z',
  });
  return {
    path: `/v1/monitor-events?${watched}`,
    headers: { authorization: auth },
    concurrent: DEFAULT_STREAM_LIMITS.perAccount,
  };
}

/** What a load driven elsewhere answered: successes, refusals by the account's limits, and 503 server_busy. */
export interface DrivenAnswers {
  readonly ok: number;
  readonly refused: number;
  readonly shed: number;
}

/**
 * Runs `plan` in a child process (`script`: noisy-load.ts unless named), resolved once it drives
 * the loads; `done` with the answers when they end, after the plan's seconds or once `stop` says so.
 */
export function driveElsewhere<P extends NoisyPlan | SignUpPlan>(
  plan: P,
  script = 'noisy-load.ts',
): Promise<{ readonly done: Promise<DrivenAnswers>; stop(): void }> {
  const child = fork(join(__dirname, script), [], { execArgv: ['--import', 'tsx'] });
  return new Promise((resolveDriving, reject) => {
    const done = new Promise<DrivenAnswers>((resolveDone, rejectDone) => {
      child.on('message', (message: NoisyReport) => {
        if (message.kind === 'driving') resolveDriving({ done, stop: () => child.send({ stop: true }) });
        else resolveDone({ ok: message.ok, refused: message.refused, shed: message.shed });
      });
      child.once('exit', (code) => {
        const failure = new Error(`the load's process (${script}) exited with ${String(code)} before its report`);
        reject(failure);
        rejectDone(failure);
      });
    });
    // Settled by the report when the process ends well; only an early exit is a failure.
    done.catch(() => undefined);
    child.send(plan);
  });
}
