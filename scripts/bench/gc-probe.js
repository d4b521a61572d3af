// Loaded into the service by cpu-per-request.ts (node --require): on SIGUSR2 it writes one line to
// standard error, `gc-probe {...}`: the garbage collections since the last report, by kind, with
// their count and milliseconds, and the V8 heap in use. Time spent collecting cannot be read from
// outside the process; it tells how much of a request's CPU goes to garbage collection, and whether
// it grows with the requests in flight (docs/performance.md).
const { constants } = require('node:perf_hooks');
const { writeSync } = require('node:fs');

const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};
let collections = {};

new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = KINDS[entry.detail.kind] ?? String(entry.detail.kind);
    const seen = (collections[kind] ??= { count: 0, ms: 0 });
    seen.count += 1;
    seen.ms += entry.duration;
  }
}).observe({ entryTypes: ['gc'] });

process.on('SIGUSR2', () => {
  const report = { collections, heapUsed: process.memoryUsage().heapUsed };
  collections = {};
  writeSync(2, `gc-probe ${JSON.stringify(report)}\n`);
});
