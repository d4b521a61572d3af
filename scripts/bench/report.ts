import type { Figures } from './measure';
import type { NoisyNeighbourFigures } from './noisy-neighbour';
import type { StreamFigures } from './streams';

export interface Row {
  readonly subject: string;
  readonly workers: number;
  readonly connections: number;
  readonly figures: Figures;
  /**
   * Requests per second as a share of the bare Express figure of the same method and connections,
   * measured just before this row (the machine's speed drifts over a run; see bench.ts).
   */
  readonly ratio: number;
  /** That bare Express figure, in requests per second. */
  readonly bare: number;
  /**
   * The load's floor at the same connections (its statements alone behind the bare app, one
   * process: floors.ts), in requests per second; null for a load without one, and for a floor.
   */
  readonly floor: number | null;
  /** Requests per second as a share of `floor`: the yardstick of the goals. */
  readonly floorRatio: number | null;
}

export interface Verdict {
  readonly goal: string;
  readonly figure: string;
  readonly met: boolean;
}

export const ANCHORS = 'POST /v1/anchors';
export const KEYED_ANCHORS = 'POST /v1/anchors + Idempotency-Key';
export const MONITOR_EVENTS = 'GET /v1/monitor-events';
/** The event streams' measurement (streams.ts), selected by BENCH_ONLY like a load. */
export const EVENT_STREAMS = 'GET /v1/monitor-events as event streams';
/** Streams one process must hold, each caught up, within the resident memory goal. */
export const HELD_STREAMS = 1_000;
/** The benchmarked loads, each with a floor; the goals hold for every one. */
export const LOADS = [ANCHORS, KEYED_ANCHORS, 'POST /v1/fast-forward', 'GET /timeline/{id}', MONITOR_EVENTS];

/**
 * The paradox checks, each on an empty timeline and on one of 10,000 displaced events: a check's
 * work is bounded, so the crowded one must answer at least half as fast (within 2× of its time).
 */
export const PARADOX_CHECKS = ['GET /v1/check-paradox', 'GET /api/v1/monitor-paradox'] as const;
const CROWDED_OF_EMPTY = 0.5;
export function paradoxLoad(check: (typeof PARADOX_CHECKS)[number], crowded: boolean): string {
  return `${check} on ${crowded ? '10,000 manipulated events' : 'an empty timeline'}`;
}

/** The name of a load's floor, which the rows of the load find it by. */
export function floorName(subject: string): string {
  return `floor of ${subject}: its statement alone`;
}

/** Each row with its floor: the floor's figure at the same connections (floors run on one process). */
export function withFloors(rows: readonly Row[]): Row[] {
  return rows.map((row) => {
    const floor = rows.find(
      (each) => each.subject === floorName(row.subject) && each.workers === 1 && each.connections === row.connections,
    );
    if (!floor || floor.figures.requestsPerSecond === 0) return { ...row, floor: null, floorRatio: null };
    const rate = floor.figures.requestsPerSecond;
    return { ...row, floor: rate, floorRatio: row.figures.requestsPerSecond / rate };
  });
}

/** Of each load's floor, at least this share at 50 connections: the service's own layers cost at most a fifth. */
const OF_FLOOR = 0.8;
const P99_MS = 60;
/** Keyed writes at least this share of the same write without a key. */
const KEYED_OF_UNKEYED = 0.75;
const MONITOR_P50_MS = 10;
const RESIDENT_MB = 250;
/** A quiet account's p99 beside a noisy one at most this many times its p99 alone. */
const BESIDE_NOISY_OF_ALONE = 2;

/**
 * The goals of docs/performance.md, all on one worker process; the two-worker rows show
 * how far a second process carries on the same machine. A goal whose figure was not measured is missed.
 */
export function checkTargets(
  rows: readonly Row[],
  peakMiB: number,
  streams: StreamFigures | null,
  noisy: NoisyNeighbourFigures | null = null,
): Verdict[] {
  const at = (subject: string, connections: number) =>
    rows.find((row) => row.subject === subject && row.workers === 1 && row.connections === connections);
  const verdicts: Verdict[] = [];
  for (const subject of LOADS) {
    const row = at(subject, 50);
    verdicts.push({
      goal: `${subject} ≥ ${OF_FLOOR.toFixed(2)} × its floor at 50 connections`,
      figure: !row
        ? 'not measured'
        : row.floorRatio === null || row.floor === null
          ? 'no floor measured'
          : `${row.floorRatio.toFixed(2)} (${row.figures.requestsPerSecond} of ${row.floor} req/s)`,
      met: !!row && row.floorRatio !== null && row.floorRatio >= OF_FLOOR,
    });
  }
  for (const subject of LOADS) {
    const row = at(subject, 50);
    verdicts.push({
      goal: `${subject} p99 < ${P99_MS} ms at 50 connections`,
      figure: row ? `${row.figures.p99Ms} ms` : 'not measured',
      met: !!row && row.figures.p99Ms < P99_MS,
    });
  }
  const keyed = at(KEYED_ANCHORS, 50);
  const unkeyed = at(ANCHORS, 50);
  const keyedShare = keyed && unkeyed ? keyed.figures.requestsPerSecond / unkeyed.figures.requestsPerSecond : null;
  verdicts.push({
    goal: `${KEYED_ANCHORS} ≥ ${KEYED_OF_UNKEYED.toFixed(2)} × ${ANCHORS} at 50 connections`,
    figure:
      keyed && unkeyed && keyedShare !== null
        ? `${keyedShare.toFixed(2)} (${keyed.figures.requestsPerSecond} of ${unkeyed.figures.requestsPerSecond} req/s)`
        : 'not measured',
    met: keyedShare !== null && keyedShare >= KEYED_OF_UNKEYED,
  });
  const monitorAt10 = at(MONITOR_EVENTS, 10);
  const monitorAt50 = at(MONITOR_EVENTS, 50);
  verdicts.push({
    goal: `${MONITOR_EVENTS} at 50 connections ≥ its req/s at 10 connections`,
    figure:
      monitorAt10 && monitorAt50
        ? `${monitorAt50.figures.requestsPerSecond} vs ${monitorAt10.figures.requestsPerSecond} req/s`
        : 'not measured',
    met:
      !!monitorAt10 && !!monitorAt50 && monitorAt50.figures.requestsPerSecond >= monitorAt10.figures.requestsPerSecond,
  });
  verdicts.push({
    goal: `${MONITOR_EVENTS} p50 < ${MONITOR_P50_MS} ms at 10 connections (1,000,000 events)`,
    figure: monitorAt10 ? `${monitorAt10.figures.p50Ms} ms` : 'not measured',
    met: !!monitorAt10 && monitorAt10.figures.p50Ms < MONITOR_P50_MS,
  });
  for (const check of PARADOX_CHECKS) {
    const crowded = at(paradoxLoad(check, true), 50);
    const empty = at(paradoxLoad(check, false), 50);
    const share = crowded && empty ? crowded.figures.requestsPerSecond / empty.figures.requestsPerSecond : null;
    verdicts.push({
      goal: `${paradoxLoad(check, true)} ≥ ${CROWDED_OF_EMPTY.toFixed(2)} × on an empty timeline at 50 connections`,
      figure:
        crowded && empty && share !== null
          ? `${share.toFixed(2)} (${crowded.figures.requestsPerSecond} of ${empty.figures.requestsPerSecond} req/s)`
          : 'not measured',
      met: share !== null && share >= CROWDED_OF_EMPTY,
    });
  }
  verdicts.push({
    goal: `resident memory of each service process < ${RESIDENT_MB} MB`,
    figure: `${peakMiB.toFixed(0)} MiB`,
    met: peakMiB > 0 && peakMiB * 1.048576 < RESIDENT_MB,
  });
  verdicts.push({
    goal: `one process holds ${HELD_STREAMS.toLocaleString('en')} event streams, each caught up`,
    figure: streams
      ? `${streams.caughtUp} of ${streams.streams} (${streams.refusedOpenings} openings refused and sent again)`
      : 'not measured',
    met: !!streams && streams.streams >= HELD_STREAMS && streams.caughtUp === streams.streams,
  });
  verdicts.push({
    goal: `resident memory of that process with them open < ${RESIDENT_MB} MB`,
    figure: streams
      ? `${streams.residentMiB.toFixed(0)} MiB (${streams.residentBeforeMiB.toFixed(0)} before)`
      : 'not measured',
    met: !!streams && streams.residentMiB * 1.048576 < RESIDENT_MB,
  });
  verdicts.push({
    goal: 'every written event reaches every stream watching it, once',
    figure: streams
      ? `${streams.delivered} of ${streams.expected} deliveries, ${streams.duplicates} twice`
      : 'not measured',
    met: !!streams && streams.delivered === streams.expected && streams.duplicates === 0,
  });
  // Beside part of the noisy account's loads (BENCH_NOISY_LOADS), the share is shown but is not the goal's.
  const partly = (noisy?.noisyLoads.left.length ?? 0) > 0;
  for (const load of ['GET /timelines', 'POST /v1/anchors']) {
    const quiet = noisy?.quiet.find((each) => each.load === load);
    const share = quiet ? quiet.beside.p99Ms / Math.max(1, quiet.alone.p99Ms) : null;
    const measured =
      quiet && share !== null ? `${share.toFixed(2)} (${quiet.beside.p99Ms} ms against ${quiet.alone.p99Ms} ms)` : null;
    verdicts.push({
      goal: `a quiet account's ${load} p99 beside a noisy one ≤ ${BESIDE_NOISY_OF_ALONE} × alone`,
      figure:
        measured === null
          ? 'not measured'
          : partly
            ? `${measured} beside only ${noisy?.noisyLoads.sent.join(', ')}`
            : measured,
      met: !partly && share !== null && share <= BESIDE_NOISY_OF_ALONE,
    });
  }
  const failed = [
    ...rows.filter((row) => row.figures.failures > 0),
    ...(noisy?.quiet ?? []).flatMap((quiet) =>
      [quiet.alone, quiet.beside].some((figures) => figures.failures > 0)
        ? [{ subject: `quiet ${quiet.load}`, figures: { failures: quiet.alone.failures + quiet.beside.failures } }]
        : [],
    ),
  ];
  verdicts.push({
    goal: 'every request answered 2xx',
    figure: failed.length === 0 ? 'all' : failed.map((row) => `${row.subject}: ${row.figures.failures}`).join('; '),
    met: failed.length === 0,
  });
  return verdicts;
}

export function formatReport(run: {
  machine: string;
  seconds: number;
  rows: readonly Row[];
  peakMiB: number;
  streams: StreamFigures | null;
  noisy?: NoisyNeighbourFigures | null;
  /** Lines of further measurements (the crowd's), after the noisy neighbour's. */
  more?: readonly string[];
  verdicts: readonly Verdict[];
}): string {
  const streams = run.streams;
  const noisy = run.noisy;
  const lines = [
    `Machine: ${run.machine}; ${run.seconds} s per measurement after a warm-up.`,
    '',
    '| subject | workers | connections | req/s | bare req/s just before | ratio to bare | floor req/s | ' +
      'ratio to floor | p50 ms | p99 ms | non-2xx/errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...run.rows.map(
      (row) =>
        `| ${row.subject} | ${row.workers} | ${row.connections} | ${row.figures.requestsPerSecond} | ${row.bare} ` +
        `| ${row.ratio.toFixed(2)} | ${row.floor ?? '—'} | ${row.floorRatio?.toFixed(2) ?? '—'} ` +
        `| ${row.figures.p50Ms} | ${row.figures.p99Ms} | ${row.figures.failures} |`,
    ),
    ...(streams
      ? [
          '',
          `Event streams (one worker): ${streams.streams} streams over ${streams.accounts} accounts, ` +
            `${streams.writes} writes by ${streams.writers} writers; from a write's answer to its event on a ` +
            `stream, over ${streams.delivered} deliveries: p50 ${streams.p50Ms} ms, p99 ${streams.p99Ms} ms, ` +
            `max ${streams.maxMs} ms (negative: the event came before the write's answer).`,
        ]
      : []),
    ...(noisy
      ? [
          '',
          `One account beside a noisy one (its ${noisy.noisyLoads.sent.join(', ')}; ` +
            `${noisy.noisy.ok} answered, ${noisy.noisy.refused} refused by its limits): the quiet account's p99 ` +
            noisy.quiet
              .map((quiet) => `${quiet.load} ${quiet.alone.p99Ms} ms alone, ${quiet.beside.p99Ms} ms beside`)
              .join('; ') +
            '.',
        ]
      : []),
    ...(run.more ?? []),
    '',
    '| goal | figure | met |',
    '|---|---|---|',
    ...run.verdicts.map((verdict) => `| ${verdict.goal} | ${verdict.figure} | ${verdict.met ? 'yes' : 'NO'} |`),
  ];
  return lines.join('\n');
}
