// `npm run bench:admission [root]`: what a request's turn costs the process, in CPU microseconds per
// request: 50 requests in flight over 200 accounts go through LocalAdmission, each holding its
// place for one turn of the event loop, with the instance's bound at its default (10: forty wait
// their turn, as in `bench:builds` at 50 connections) and with room for all fifty (each runs at
// once), beside the same loop with no gate. No network and no database: the figure moves with the
// gate's own work, not with the machine's other tenants, which is what a change to the gate is
// measured by (docs/performance.md, "The crowd"). `root`: another checkout, built, whose
// dist/ is measured the same way.
import { EventEmitter } from 'node:events';
import { join, resolve } from 'node:path';
import type { AdmissionGate } from '../../src/interfaces/http/admission/admission-gate';
import type * as LocalAdmissionModule from '../../src/interfaces/http/admission/local-admission';

const REQUESTS = 200_000;
const IN_FLIGHT = 50;
const ACCOUNTS = 200;
const ROUNDS = 5;

type Enter = AdmissionGate['enter'];

async function gateOf(root: string | undefined, running: number): Promise<Enter> {
  const path = root
    ? join(resolve(root), 'dist/interfaces/http/admission/local-admission.js')
    : '../../src/interfaces/http/admission/local-admission';
  const { LocalAdmission } = (await import(path)) as typeof LocalAdmissionModule;
  // Unpaced: a pace a million a second per account never makes a request wait.
  const gate = new LocalAdmission({ running: 8, queued: 100, startsPerSecond: 1_000_000 }, { running, queued: 200 });
  return gate.enter.bind(gate);
}

/** CPU microseconds per request of REQUESTS through `enter` (none: no gate), IN_FLIGHT at a time. */
async function round(enter: Enter | null): Promise<number> {
  let sent = 0;
  const one = async (n: number) => {
    // As a response: the gate hears through it that its client went away.
    const res = Object.assign(new EventEmitter(), { closed: false });
    const whenGone = (listener: () => void) => (res.closed ? listener() : res.once('close', listener));
    const admitted = enter ? await enter(`acc_${n % ACCOUNTS}`, whenGone, { cost: 1, weight: 1 }) : null;
    await new Promise((done) => setImmediate(done));
    admitted?.leave();
    res.closed = true;
    res.emit('close');
  };
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (sent < REQUESTS) await one(sent++);
    }),
  );
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / REQUESTS;
}

async function median(enter: Enter | null): Promise<string> {
  await round(enter); // warm-up, not counted
  const figures: number[] = [];
  for (let n = 0; n < ROUNDS; n++) figures.push(await round(enter));
  figures.sort((a, b) => a - b);
  const show = (value: number) => value.toFixed(1);
  return `${show(figures[Math.floor(ROUNDS / 2)])} (${show(figures[0])}–${show(figures[ROUNDS - 1])})`;
}

async function main(): Promise<void> {
  const root = process.argv[2];
  console.log(`CPU µs a request, median (range) of ${ROUNDS} rounds of ${REQUESTS}, ${IN_FLIGHT} in flight:`);
  console.log(`- no gate: ${await median(null)}`);
  console.log(`- the default bound (10), 40 waiting: ${await median(await gateOf(root, 10))}`);
  console.log(`- room for all ${IN_FLIGHT}: ${await median(await gateOf(root, IN_FLIGHT))}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
