// The benchmark's goals (scripts/bench/report.ts) on made-up figures: each kind of goal met and missed.
import type { Figures } from '../../../scripts/bench/measure';
import type { NoisyNeighbourFigures } from '../../../scripts/bench/noisy-neighbour';
import type { StreamFigures } from '../../../scripts/bench/streams';
import {
  ANCHORS,
  checkTargets,
  floorName,
  KEYED_ANCHORS,
  LOADS,
  MONITOR_EVENTS,
  PARADOX_CHECKS,
  paradoxLoad,
  type Row,
  type Verdict,
  withFloors,
} from '../../../scripts/bench/report';

const FAST: Figures = { requestsPerSecond: 1000, p50Ms: 5, p99Ms: 40, failures: 0 };
/** A thousand streams held, every event delivered once. */
const STREAMS: StreamFigures = {
  streams: 1000,
  accounts: 50,
  writers: 10,
  caughtUp: 1000,
  refusedOpenings: 20,
  residentBeforeMiB: 120,
  residentMiB: 200,
  writes: 500,
  expected: 10_000,
  delivered: 10_000,
  duplicates: 0,
  p50Ms: 1.2,
  p99Ms: 9.5,
  maxMs: 20,
};

const quietFigures = (p99Ms: number) => ({ requestsPerSecond: 500, p50Ms: 2, p99Ms, failures: 0 });
const NOISY: NoisyNeighbourFigures = {
  quiet: [
    { load: 'GET /timelines', alone: quietFigures(10), beside: quietFigures(20) },
    { load: 'POST /v1/anchors', alone: quietFigures(12), beside: quietFigures(15) },
  ],
  noisy: { ok: 3000, refused: 400 },
  noisyLoads: { sent: ['check-paradox', 'monitor-paradox', 'scan-events', 'streams'], left: [] },
};

function row(subject: string, connections: number, figures: Partial<Figures> = {}, workers = 1): Row {
  return {
    subject,
    workers,
    connections,
    figures: { ...FAST, ...figures },
    ratio: 0.5,
    bare: 2000,
    floor: null,
    floorRatio: null,
  };
}

/**
 * Every load and its floor at 10 and 50 connections, each load at 0.9 of its floor, and each paradox
 * check as fast on a crowded timeline as on an empty one: every goal met.
 */
function meetingEveryGoal(): Row[] {
  return [
    ...LOADS.flatMap((subject) =>
      [10, 50].flatMap((connections) => [
        row(subject, connections, { requestsPerSecond: 900 }),
        row(floorName(subject), connections),
      ]),
    ),
    ...PARADOX_CHECKS.flatMap((check) =>
      [10, 50].flatMap((connections) => [
        row(paradoxLoad(check, false), connections),
        row(paradoxLoad(check, true), connections),
      ]),
    ),
  ];
}

/** The rows with `subject` at `connections` (one worker) given other figures. */
function changed(rows: readonly Row[], subject: string, connections: number, figures: Partial<Figures>): Row[] {
  return rows.map((each) =>
    each.subject === subject && each.connections === connections && each.workers === 1
      ? { ...each, figures: { ...each.figures, ...figures } }
      : each,
  );
}

function verdictOf(verdicts: readonly Verdict[], goal: string): Verdict {
  const found = verdicts.find((verdict) => verdict.goal === goal);
  if (!found) throw new Error(`no goal "${goal}" among ${verdicts.map((verdict) => verdict.goal).join(', ')}`);
  return found;
}

const missed = (verdicts: readonly Verdict[]) => verdicts.filter((verdict) => !verdict.met).map((each) => each.goal);

describe('the benchmark goals', () => {
  it('are all met by figures that meet each, and printed with their figures', () => {
    const verdicts = checkTargets(withFloors(meetingEveryGoal()), 180, STREAMS, NOISY);

    expect(missed(verdicts)).toEqual([]);
    expect(verdictOf(verdicts, `${ANCHORS} ≥ 0.80 × its floor at 50 connections`).figure).toBe(
      '0.90 (900 of 1000 req/s)',
    );
  });

  it('gives each row the ratio to its floor at the same connections, and none to a floor', () => {
    const rows = withFloors([
      row(ANCHORS, 10, { requestsPerSecond: 600 }),
      row(ANCHORS, 50, { requestsPerSecond: 700 }),
      row(ANCHORS, 50, { requestsPerSecond: 1400 }, 2),
      row(floorName(ANCHORS), 10, { requestsPerSecond: 800 }),
      row(floorName(ANCHORS), 50, { requestsPerSecond: 1000 }),
    ]);

    expect(rows.map((each) => [each.workers, each.connections, each.floor, each.floorRatio])).toEqual([
      [1, 10, 800, 0.75],
      [1, 50, 1000, 0.7],
      [2, 50, 1000, 1.4],
      [1, 10, null, null],
      [1, 50, null, null],
    ]);
  });

  it('miss the floor ratio under 0.8 of the floor, and without a floor measured', () => {
    const below = changed(meetingEveryGoal(), ANCHORS, 50, { requestsPerSecond: 790 });
    const withoutFloor = meetingEveryGoal().filter((each) => each.subject !== floorName('GET /timeline/{id}'));

    expect(missed(checkTargets(withFloors(below), 180, STREAMS, NOISY))).toEqual([
      `${ANCHORS} ≥ 0.80 × its floor at 50 connections`,
    ]);
    const verdicts = checkTargets(withFloors(withoutFloor), 180, STREAMS, NOISY);
    expect(missed(verdicts)).toEqual(['GET /timeline/{id} ≥ 0.80 × its floor at 50 connections']);
    expect(verdictOf(verdicts, 'GET /timeline/{id} ≥ 0.80 × its floor at 50 connections').figure).toBe(
      'no floor measured',
    );
  });

  it('miss p99 at 60 ms or more on any load at 50 connections, keyed writes included', () => {
    const slow = changed(meetingEveryGoal(), KEYED_ANCHORS, 50, { p99Ms: 60 });
    const slowAt10 = changed(meetingEveryGoal(), KEYED_ANCHORS, 10, { p99Ms: 200 });

    expect(missed(checkTargets(withFloors(slow), 180, STREAMS, NOISY))).toEqual([
      `${KEYED_ANCHORS} p99 < 60 ms at 50 connections`,
    ]);
    expect(missed(checkTargets(withFloors(slowAt10), 180, STREAMS, NOISY))).toEqual([]);
  });

  it('miss keyed writes under 0.75 of the same write without a key', () => {
    const goal = `${KEYED_ANCHORS} ≥ 0.75 × ${ANCHORS} at 50 connections`;
    // Both above 0.8 of their floors; keyed at 0.75, then 0.74, of unkeyed.
    const base = changed(meetingEveryGoal(), floorName(KEYED_ANCHORS), 50, { requestsPerSecond: 800 });
    const justMet = changed(changed(base, ANCHORS, 50, { requestsPerSecond: 1000 }), KEYED_ANCHORS, 50, {
      requestsPerSecond: 750,
    });
    const under = changed(justMet, KEYED_ANCHORS, 50, { requestsPerSecond: 740 });

    expect(verdictOf(checkTargets(withFloors(justMet), 180, STREAMS, NOISY), goal)).toEqual({
      goal,
      figure: '0.75 (750 of 1000 req/s)',
      met: true,
    });
    expect(missed(checkTargets(withFloors(under), 180, STREAMS, NOISY))).toContain(goal);
    expect(verdictOf(checkTargets(withFloors(under), 180, STREAMS, NOISY), goal).met).toBe(false);
  });

  it('miss monitor-events at 50 connections slower than at 10', () => {
    const goal = `${MONITOR_EVENTS} at 50 connections ≥ its req/s at 10 connections`;
    const falling = changed(meetingEveryGoal(), MONITOR_EVENTS, 10, { requestsPerSecond: 901 });

    expect(verdictOf(checkTargets(withFloors(meetingEveryGoal()), 180, STREAMS, NOISY), goal)).toEqual({
      goal,
      figure: '900 vs 900 req/s',
      met: true,
    });
    expect(missed(checkTargets(withFloors(falling), 180, STREAMS, NOISY))).toEqual([goal]);
  });

  it('miss monitor-events p50 at 10 ms or more at 10 connections', () => {
    const slow = changed(meetingEveryGoal(), MONITOR_EVENTS, 10, { p50Ms: 10 });

    expect(missed(checkTargets(withFloors(slow), 180, STREAMS, NOISY))).toEqual([
      `${MONITOR_EVENTS} p50 < 10 ms at 10 connections (1,000,000 events)`,
    ]);
  });

  it('miss a paradox check on 10,000 manipulated events slower than half its rate on an empty timeline', () => {
    const crowded = paradoxLoad('GET /v1/check-paradox', true);
    const goal = `${crowded} ≥ 0.50 × on an empty timeline at 50 connections`;
    const justMet = changed(meetingEveryGoal(), crowded, 50, { requestsPerSecond: 500 });
    const under = changed(meetingEveryGoal(), crowded, 50, { requestsPerSecond: 499 });
    const unmeasured = meetingEveryGoal().filter((each) => each.subject !== crowded);

    expect(verdictOf(checkTargets(withFloors(justMet), 180, STREAMS, NOISY), goal)).toEqual({
      goal,
      figure: '0.50 (500 of 1000 req/s)',
      met: true,
    });
    expect(missed(checkTargets(withFloors(under), 180, STREAMS, NOISY))).toEqual([goal]);
    expect(verdictOf(checkTargets(withFloors(unmeasured), 180, STREAMS, NOISY), goal).figure).toBe('not measured');
  });

  it('miss resident memory of 250 MB (238.4 MiB) or more, and none measured', () => {
    const goal = 'resident memory of each service process < 250 MB';
    const rows = withFloors(meetingEveryGoal());

    expect(verdictOf(checkTargets(rows, 238, STREAMS), goal).met).toBe(true);
    expect(verdictOf(checkTargets(rows, 238.5, STREAMS), goal).met).toBe(false);
    expect(verdictOf(checkTargets(rows, 0, STREAMS), goal).met).toBe(false);
  });

  it('miss any request not answered 2xx, on any row, floors included', () => {
    const failing = changed(meetingEveryGoal(), floorName(ANCHORS), 10, { failures: 3 });

    const verdicts = checkTargets(withFloors(failing), 180, STREAMS, NOISY);
    expect(missed(verdicts)).toEqual(['every request answered 2xx']);
    expect(verdictOf(verdicts, 'every request answered 2xx').figure).toBe(`${floorName(ANCHORS)}: 3`);
  });

  it('miss every goal of a load that was not measured', () => {
    const verdicts = checkTargets(
      withFloors(meetingEveryGoal().filter((each) => each.subject !== MONITOR_EVENTS)),
      180,
      STREAMS,
      NOISY,
    );

    expect(missed(verdicts)).toEqual([
      `${MONITOR_EVENTS} ≥ 0.80 × its floor at 50 connections`,
      `${MONITOR_EVENTS} p99 < 60 ms at 50 connections`,
      `${MONITOR_EVENTS} at 50 connections ≥ its req/s at 10 connections`,
      `${MONITOR_EVENTS} p50 < 10 ms at 10 connections (1,000,000 events)`,
    ]);
  });

  it('miss the streams goals: not all caught up, 250 MB or more, a delivery lost or doubled, none measured', () => {
    const rows = withFloors(meetingEveryGoal());
    const held = 'one process holds 1,000 event streams, each caught up';
    const memory = 'resident memory of that process with them open < 250 MB';
    const delivered = 'every written event reaches every stream watching it, once';

    expect(verdictOf(checkTargets(rows, 180, STREAMS, NOISY), held).figure).toBe(
      '1000 of 1000 (20 openings refused and sent again)',
    );
    expect(missed(checkTargets(rows, 180, { ...STREAMS, caughtUp: 999 }, NOISY))).toEqual([held]);
    expect(missed(checkTargets(rows, 180, { ...STREAMS, streams: 500, caughtUp: 500 }, NOISY))).toEqual([held]);
    expect(missed(checkTargets(rows, 180, { ...STREAMS, residentMiB: 238.5 }, NOISY))).toEqual([memory]);
    expect(missed(checkTargets(rows, 180, { ...STREAMS, delivered: 9_999 }, NOISY))).toEqual([delivered]);
    expect(missed(checkTargets(rows, 180, { ...STREAMS, duplicates: 1 }, NOISY))).toEqual([delivered]);
    expect(missed(checkTargets(rows, 180, null, NOISY))).toEqual([held, memory, delivered]);
  });

  it("miss a quiet account's p99 beside a noisy one above twice its p99 alone, or not measured", () => {
    const goal = "a quiet account's GET /timelines p99 beside a noisy one ≤ 2 × alone";
    const louder = { ...NOISY, quiet: [{ ...NOISY.quiet[0]!, beside: quietFigures(21) }, NOISY.quiet[1]!] };

    expect(verdictOf(checkTargets(withFloors(meetingEveryGoal()), 180, STREAMS, NOISY), goal)).toEqual({
      goal,
      figure: '2.00 (20 ms against 10 ms)',
      met: true,
    });
    expect(missed(checkTargets(withFloors(meetingEveryGoal()), 180, STREAMS, louder))).toEqual([goal]);
    expect(missed(checkTargets(withFloors(meetingEveryGoal()), 180, STREAMS, null))).toEqual([
      goal,
      "a quiet account's POST /v1/anchors p99 beside a noisy one ≤ 2 × alone",
    ]);
  });

  it("read no goal beside only part of the noisy account's loads (BENCH_NOISY_LOADS)", () => {
    const goal = "a quiet account's GET /timelines p99 beside a noisy one ≤ 2 × alone";
    const scansOnly = {
      ...NOISY,
      noisyLoads: { sent: ['scan-events'], left: ['check-paradox', 'monitor-paradox', 'streams'] },
    };

    expect(verdictOf(checkTargets(withFloors(meetingEveryGoal()), 180, STREAMS, scansOnly), goal)).toEqual({
      goal,
      figure: '2.00 (20 ms against 10 ms) beside only scan-events',
      met: false,
    });
  });
});
