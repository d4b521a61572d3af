// The crowd: many accounts, or many addresses, each within its own limits (docs/performance.md, "The
// crowd"). A quiet account sending one request at a time is measured alone, then beside twenty
// accounts sending 100-name paradox checks, then beside sign-ups from many addresses; its p99 beside
// each must stay within twice its p99 alone, none of its requests shed. Then 300 connections spread
// over 5,000 accounts, every one alike: the process must stay up with a flat memory, and shed with
// 503 rather than queue without bound. Each on a fresh one-worker service with the default limits.
import { drive, type Figures, type Load } from './measure';
import { driveElsewhere, type DrivenAnswers } from './noisy-neighbour';
import type { NoisyPlan } from './noisy-load';
import { measurePaced } from './paced';
import { residentMiB } from './processes';
import { seedAccounts, type SeededAccount } from './crowd-seed';
import { startService } from './service';
import type { SignUpPlan } from './sign-up-load';
import type { Verdict } from './report';

export const CROWD = 'the crowd';
/** The accounts of the crowd, each sending 100-name paradox checks on connections of its own. */
const CROWD_ACCOUNTS = 20;
const CROWD_CONNECTIONS = 4;
/** Names in each check: the most a check takes. */
const NAMES = 100;
/** Each crowd account's checks a second: half its rate limit, within it whatever the window. */
const CROWD_PER_SECOND = 50;
/** The quiet account: one request at a time, this many a second. */
const QUIET_PER_SECOND = 40;
/**
 * Each quiet figure over this many times `BENCH_SECONDS`: its p99 is then the 12th slowest of 1,200
 * requests, where over 10 s it was the 4th of 400 and moved with three requests.
 */
const QUIET_SECONDS_PER_BENCH_SECOND = 3;
/** Addresses signing up, each in a /24 of its own, each at its limit's pace (10 a minute). */
const SIGN_UP_ADDRESSES = 100;
const SIGN_UP_EVERY_SECONDS = 6.5;
/** Every account alike: this many, over this many connections. */
const MANY_ACCOUNTS = 5_000;
const MANY_CONNECTIONS = 300;
/** The quiet p99 beside the crowd at most this many times alone; memory at most this share above its level. */
const BESIDE_OF_ALONE = 2;
const FLAT_MEMORY = 1.1;
/** The loads beside the quiet one run until it is measured, but never longer than this. */
const BESIDE_AT_MOST_SECONDS = 600;

export interface CrowdFigures {
  readonly quiet: readonly {
    readonly load: string;
    readonly alone: Figures;
    readonly besideChecks: Figures;
    readonly besideSignUps: Figures;
  }[];
  /** One 100-name check at a time at a crowd account's pace, alone: what the weight of a check (9) stands for. */
  readonly checkAlone: Figures | null;
  readonly checks: DrivenAnswers;
  readonly signUps: DrivenAnswers;
  readonly many: {
    readonly ok: number;
    readonly shed: number;
    readonly other: number;
    /** Resident memory, MiB: the median of the run's second third, and of its last third. */
    readonly middleMiB: number;
    readonly endMiB: number;
    readonly alive: boolean;
  };
}

export async function measureCrowd(databaseUrl: string, seconds: number): Promise<CrowdFigures> {
  const defaults = { env: { RATE_LIMIT_PER_SECOND: '100', RATE_LIMIT_ACCOUNTS_PER_MINUTE: '10' } };
  const service = await startService(databaseUrl, 1, defaults);
  const quietFigures: CrowdFigures['quiet'][number][] = [];
  let checks: DrivenAnswers = { ok: 0, refused: 0, shed: 0 };
  let signUps: DrivenAnswers = { ok: 0, refused: 0, shed: 0 };
  let checkAlone: Figures;
  try {
    const [quiet, ...crowd] = await seedAccounts(service.url, databaseUrl, 'crowd', CROWD_ACCOUNTS + 1);
    if (!quiet || !crowd[0]) throw new Error('no quiet and crowd accounts seeded');
    // At its own pace (within the account's rate limit): sent back to back, most would be 429s answered at once.
    checkAlone = await measurePaced(service.url, checkLoad(crowd[0]), 1, seconds);
    const quietSeconds = QUIET_SECONDS_PER_BENCH_SECOND * seconds;
    for (const load of quietLoads(quiet)) {
      const alone = await measurePaced(service.url, load, 1, quietSeconds);
      const besideChecks = await besideLoad(
        driveElsewhere<NoisyPlan>({
          url: service.url,
          loads: crowd.map((account) => ({ load: checkLoad(account), connections: CROWD_CONNECTIONS })),
          seconds: BESIDE_AT_MOST_SECONDS,
        }),
        1,
        () => measurePaced(service.url, load, 1, quietSeconds),
      );
      checks = add(checks, besideChecks.answers);
      const besideSignUps = await besideLoad(
        driveElsewhere<SignUpPlan>(
          {
            url: service.url,
            addresses: SIGN_UP_ADDRESSES,
            everySeconds: SIGN_UP_EVERY_SECONDS,
            seconds: BESIDE_AT_MOST_SECONDS,
          },
          'sign-up-load.ts',
        ),
        SIGN_UP_EVERY_SECONDS,
        () => measurePaced(service.url, load, 1, quietSeconds),
      );
      signUps = add(signUps, besideSignUps.answers);
      quietFigures.push({
        load: load.name,
        alone,
        besideChecks: besideChecks.quiet,
        besideSignUps: besideSignUps.quiet,
      });
      console.error(
        `measured ${CROWD}: ${load.name} p99 ${alone.p99Ms} ms alone, ${besideChecks.quiet.p99Ms} ms beside the ` +
          `checks, ${besideSignUps.quiet.p99Ms} ms beside the sign-ups`,
      );
    }
  } finally {
    await service.stop();
  }
  return { quiet: quietFigures, checkAlone, checks, signUps, many: await measureMany(databaseUrl, seconds) };
}

/**
 * Measures the quiet load while `driving` runs (after `settleSeconds` for it to reach its pace), then
 * stops it. It must still run when the measurement ends: a quiet load slowed down takes longer to
 * measure, and a measurement that outlasted the load beside it would be the quiet load alone.
 */
async function besideLoad(
  driving: ReturnType<typeof driveElsewhere>,
  settleSeconds: number,
  measureQuiet: () => Promise<Figures>,
): Promise<{ readonly quiet: Figures; readonly answers: DrivenAnswers }> {
  const load = await driving;
  let ended = false;
  void load.done.then(() => (ended = true));
  await new Promise((resolve) => setTimeout(resolve, settleSeconds * 1000));
  const quiet = await measureQuiet();
  if (ended) throw new Error(`${CROWD}: the load beside the quiet one ended before its measurement did`);
  load.stop();
  return { quiet, answers: await load.done };
}

function quietLoads(quiet: SeededAccount): Load[] {
  const headers = { authorization: quiet.auth };
  return [
    { name: 'GET /timelines', method: 'GET', path: '/timelines', headers, perSecond: QUIET_PER_SECOND },
    {
      name: 'POST /v1/anchors',
      method: 'POST',
      path: '/v1/anchors',
      headers,
      body: { description: 'Quiet anchor' },
      perSecond: QUIET_PER_SECOND,
    },
  ];
}

function checkLoad(account: SeededAccount): Load {
  const proposedChanges = Array.from({ length: NAMES }, (_, n) => ({
    event: `Sighting ${n}`,
    time: new Date(Date.UTC(1900, 0, 1) + n * 3_600_000).toISOString(),
  }));
  return {
    name: 'POST /v1/paradox-checks (100 names)',
    method: 'POST',
    path: '/v1/paradox-checks',
    headers: { authorization: account.auth },
    body: { timeline_id: account.timelineId, proposed_changes: proposedChanges },
    perSecond: CROWD_PER_SECOND,
  };
}

function add(a: DrivenAnswers, b: DrivenAnswers): DrivenAnswers {
  return { ok: a.ok + b.ok, refused: a.refused + b.refused, shed: a.shed + b.shed };
}

/** 300 connections over 5,000 accounts, each request the next account's read; memory sampled each second. */
async function measureMany(databaseUrl: string, seconds: number): Promise<CrowdFigures['many']> {
  const service = await startService(databaseUrl, 1, { env: { RATE_LIMIT_PER_SECOND: '100' } });
  try {
    const accounts = await seedAccounts(service.url, databaseUrl, 'many', MANY_ACCOUNTS);
    const load: Load = {
      name: 'GET /timelines over 5,000 accounts',
      method: 'GET',
      path: '/timelines',
      rotate: accounts.map((account) => account.auth),
    };
    const pid = service.child.pid ?? 0;
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(...residentMiB(pid)), 1000);
    let result: Awaited<ReturnType<typeof drive>>;
    try {
      result = await drive(service.url, load, MANY_CONNECTIONS, 3 * seconds);
    } finally {
      clearInterval(sampler);
    }
    const shed = result.statusCodeStats?.['503']?.count ?? 0;
    const third = Math.floor(samples.length / 3);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    const alive = service.child.exitCode === null && service.child.signalCode === null;
    return {
      ok: result['2xx'],
      shed,
      other: result.non2xx - shed + result.errors + result.timeouts,
      middleMiB: median(samples.slice(third, 2 * third)),
      endMiB: median(samples.slice(2 * third)),
      alive,
    };
  } finally {
    await service.stop();
  }
}

export function crowdVerdicts(crowd: CrowdFigures | null): Verdict[] {
  const verdicts: Verdict[] = [];
  for (const name of ['GET /timelines', 'POST /v1/anchors']) {
    const quiet = crowd?.quiet.find((each) => each.load === name);
    for (const [beside, figures] of [
      ['twenty accounts sending 100-name checks', quiet?.besideChecks],
      [`sign-ups from ${SIGN_UP_ADDRESSES} addresses`, quiet?.besideSignUps],
    ] as const) {
      const share = quiet && figures ? figures.p99Ms / Math.max(1, quiet.alone.p99Ms) : null;
      verdicts.push({
        goal: `a quiet account's ${name} p99 beside ${beside} ≤ ${BESIDE_OF_ALONE} × alone, none shed`,
        figure:
          quiet && figures && share !== null
            ? `${share.toFixed(2)} (${figures.p99Ms} ms against ${quiet.alone.p99Ms} ms), ${figures.failures} not 2xx`
            : 'not measured',
        met: share !== null && share <= BESIDE_OF_ALONE && figures?.failures === 0 && quiet?.alone.failures === 0,
      });
    }
  }
  const many = crowd?.many;
  verdicts.push({
    goal:
      `${MANY_CONNECTIONS} connections over ${MANY_ACCOUNTS.toLocaleString('en')} accounts: ` +
      'the process stays up, sheds with 503, memory flat',
    figure: many
      ? `${many.alive ? 'up' : 'DOWN'}; ${many.ok} answered, ${many.shed} shed, ${many.other} other; ` +
        `${many.middleMiB.toFixed(0)} then ${many.endMiB.toFixed(0)} MiB`
      : 'not measured',
    met: !!many && many.alive && many.shed > 0 && many.other === 0 && many.endMiB <= many.middleMiB * FLAT_MEMORY,
  });
  return verdicts;
}

export function crowdLines(crowd: CrowdFigures | null): string[] {
  if (!crowd) return [];
  const answers = (what: string, driven: DrivenAnswers) =>
    `${what}: ${driven.ok} answered, ${driven.refused} refused by their limits, ${driven.shed} 503`;
  return [
    '',
    `The crowd: ${answers(`${CROWD_ACCOUNTS} accounts' paradox checks`, crowd.checks)}; ` +
      `${answers(`sign-ups from ${SIGN_UP_ADDRESSES} addresses`, crowd.signUps)}. The quiet account's p99 ` +
      crowd.quiet
        .map(
          (quiet) =>
            `${quiet.load} ${quiet.alone.p99Ms} ms alone, ${quiet.besideChecks.p99Ms} ms beside the checks, ` +
            `${quiet.besideSignUps.p99Ms} ms beside the sign-ups`,
        )
        .join('; ') +
      '.' +
      (crowd.checkAlone
        ? ` A 100-name check alone, ${CROWD_PER_SECOND} a second one at a time: p50 ${crowd.checkAlone.p50Ms} ms, ` +
          `${crowd.checkAlone.failures} not 2xx ` +
          '(its weight, 9, stands for some eight plain reads).'
        : ''),
  ];
}
