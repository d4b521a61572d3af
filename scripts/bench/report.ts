import type { Figures } from './measure';

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
}

export interface Verdict {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

const WRITES = ['POST /v1/anchors', 'POST /v1/fast-forward'];
const READS = ['GET /timeline/{id}', 'GET /v1/monitor-events'];

/**
 * The targets of issue #6, checked on one worker process against one bare Express process (like for
 * like); the two-worker rows show how far a second process carries on the same machine.
 */
export function checkTargets(rows: readonly Row[], peakMiB: number): Verdict[] {
  const at = (subject: string, connections: number) =>
    rows.find((row) => row.subject === subject && row.workers === 1 && row.connections === connections);
  const verdicts: Verdict[] = [];
  for (const subject of WRITES) verdicts.push(ratioAtLeast(at(subject, 50), subject, 0.4, 'bare POST'));
  for (const subject of READS) verdicts.push(ratioAtLeast(at(subject, 50), subject, 0.45, 'bare GET'));
  for (const subject of [...WRITES, ...READS]) {
    const row = at(subject, 50);
    verdicts.push({
      target: `${subject} p99 < 60 ms at 50 connections`,
      measured: row ? `${row.figures.p99Ms} ms` : 'not measured',
      met: !!row && row.figures.p99Ms < 60,
    });
  }
  const monitor = at('GET /v1/monitor-events', 10);
  verdicts.push({
    target: 'GET /v1/monitor-events p50 < 10 ms at 10 connections (1,000,000 events)',
    measured: monitor ? `${monitor.figures.p50Ms} ms` : 'not measured',
    met: !!monitor && monitor.figures.p50Ms < 10,
  });
  verdicts.push({
    target: 'resident memory of each service process < 250 MB',
    measured: `${peakMiB.toFixed(0)} MiB`,
    met: peakMiB > 0 && peakMiB * 1.048576 < 250,
  });
  const failed = rows.filter((row) => row.figures.failures > 0);
  verdicts.push({
    target: 'every request answered 2xx',
    measured: failed.length === 0 ? 'all' : failed.map((row) => `${row.subject}: ${row.figures.failures}`).join('; '),
    met: failed.length === 0,
  });
  return verdicts;
}

function ratioAtLeast(row: Row | undefined, subject: string, floor: number, yardstick: string): Verdict {
  return {
    target: `${subject} ≥ ${floor.toFixed(2)} × ${yardstick} at 50 connections`,
    measured: row ? row.ratio.toFixed(2) : 'not measured',
    met: !!row && row.ratio >= floor,
  };
}

export function formatReport(run: {
  machine: string;
  seconds: number;
  rows: readonly Row[];
  peakMiB: number;
  verdicts: readonly Verdict[];
}): string {
  const lines = [
    `Machine: ${run.machine}; ${run.seconds} s per measurement after a warm-up.`,
    '',
    '| subject | workers | connections | req/s | bare req/s just before | ratio to bare | p50 ms | ' +
      'p99 ms | non-2xx/errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...run.rows.map(
      (row) =>
        `| ${row.subject} | ${row.workers} | ${row.connections} | ${row.figures.requestsPerSecond} | ${row.bare} ` +
        `| ${row.ratio.toFixed(2)} | ${row.figures.p50Ms} | ${row.figures.p99Ms} | ${row.figures.failures} |`,
    ),
    '',
    '| target | measured | met |',
    '|---|---|---|',
    ...run.verdicts.map((verdict) => `| ${verdict.target} | ${verdict.measured} | ${verdict.met ? 'yes' : 'NO'} |`),
  ];
  return lines.join('\n');
}
