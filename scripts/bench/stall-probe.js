// Loaded into the service (BENCH_SERVICE_NODE_FLAGS='--require ./scripts/bench/stall-probe.js') to
// see where a slow request waited: appends to STALL_PROBE_FILE, a line per event-loop stall and per
// garbage collection, each with its start as epoch milliseconds (the request log's `time` is the
// answer's end, so a request's span is [time - responseTime, time]).
//   stall <start> <ms> <ms running> <ms waiting for a core>
//   gc <start> <ms> <kind>
// A stall is a 1 ms timer late by more than 2 ms. The main thread's time running and time waiting on
// the run queue over it come from /proc (schedstat): running is JavaScript and the service's own work;
// waiting is the machine's other processes (PostgreSQL, the load generators) holding both cores.
// It reads /proc every millisecond: with it loaded the quiet account's p99 alone was 14–20 ms, against
// 5–8 ms without (2026-11-28), so its runs are for diagnosis, not for the goals.
const { appendFileSync, readFileSync } = require('node:fs');

const file = process.env.STALL_PROBE_FILE;
if (!file) throw new Error('stall-probe.js: set STALL_PROBE_FILE to the file to append to');
const schedstat = `/proc/self/task/${process.pid}/schedstat`;
const origin = performance.timeOrigin;
const lines = [];
const ms = (nanoseconds) => (nanoseconds / 1e6).toFixed(2);
const sample = () => readFileSync(schedstat, 'latin1').split(' ').map(Number);

new PerformanceObserver((list) => {
  for (const entry of list.getEntries())
    lines.push(`gc ${(origin + entry.startTime).toFixed(1)} ${entry.duration.toFixed(2)} ${entry.detail.kind}`);
}).observe({ entryTypes: ['gc'] });

let last = performance.now();
let lastSample = sample();
setInterval(() => {
  const now = performance.now();
  const current = sample();
  const late = now - last - 1;
  if (late > 2) {
    const [running, waiting] = [current[0] - lastSample[0], current[1] - lastSample[1]];
    lines.push(`stall ${(origin + last).toFixed(1)} ${late.toFixed(2)} ${ms(running)} ${ms(waiting)}`);
  }
  last = now;
  lastSample = current;
}, 1).unref();

setInterval(() => {
  if (lines.length === 0) return;
  appendFileSync(file, `${lines.join('\n')}\n`);
  lines.length = 0;
}, 1000).unref();
