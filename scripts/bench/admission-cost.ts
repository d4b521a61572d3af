// `npm run bench:admission [checkout]`: what a request's turn costs the process, in CPU microseconds
// per request: 50 requests in flight over 200 accounts go through LocalAdmission, each holding its
// place for one turn of the event loop, with the instance's bound at its default (10: forty wait
// their turn, as in `bench:builds` at 50 connections) and with room for all fifty (each runs at
// once), beside the same loop with no gate. No network and no database: the figure is the gate's
// own work. With a checkout (built), its gate too, each build's from its tsc output, their rounds
// alternating in this one process so that the machine's drift moves both alike
// (docs/performance.md, "The other benchmarks").
import { EventEmitter } from 'node:events';
import { join, resolve } from 'node:path';
import type { AdmissionGate } from '../../src/interfaces/http/admission/admission-gate';
import type * as LocalAdmissionModule from '../../src/interfaces/http/admission/local-admission';
import { spread } from './measure';

const REQUESTS = 200_000;
const IN_FLIGHT = 50;
const ACCOUNTS = 200;
const ROUNDS = 5;

type Enter = AdmissionGate['enter'] | null;
type Gates = (running: number) => Enter;

/** A build's gates at a bound, from its tsc output (`npm run build`). */
async function gatesOf(root: string): Promise<Gates> {
  const path = join(resolve(root), 'dist/interfaces/http/admission/local-admission.js');
  const { LocalAdmission } = (await import(path)) as typeof LocalAdmissionModule;
  return (running) => {
    // Unpaced: a pace of a million a second per account never makes a request wait.
    const gate = new LocalAdmission({ running: 8, queued: 100, startsPerSecond: 1_000_000 }, { running, queued: 200 });
    return gate.enter.bind(gate);
  };
}

/** CPU microseconds per request of REQUESTS through `enter` (null: no gate), IN_FLIGHT at a time. */
async function round(enter: Enter): Promise<number> {
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

/** Each build's figures for `enters` (one gate each), their rounds alternating; a warm-up round first. */
async function inTurn(enters: readonly Enter[]): Promise<string[]> {
  for (const enter of enters) await round(enter);
  const figures = enters.map((): number[] => []);
  for (let n = 0; n < ROUNDS; n++)
    for (const [build, enter] of enters.entries()) figures[build].push(await round(enter));
  return figures.map((each) => spread(each, 1));
}

async function main(): Promise<void> {
  const other = process.argv[2];
  const builds = [await gatesOf('.'), ...(other ? [await gatesOf(other)] : [])];
  const names = ['this build', ...(other ? [`the build in ${resolve(other)}`] : [])];
  console.log(`CPU µs a request, median (range) of ${ROUNDS} rounds of ${REQUESTS}, ${IN_FLIGHT} in flight:`);
  const [none] = await inTurn([null]);
  console.log(`- no gate: ${none}`);
  for (const [label, running] of [
    ['the default bound (10), 40 waiting', 10],
    [`room for all ${IN_FLIGHT}`, IN_FLIGHT],
  ] as const) {
    const figures = await inTurn(builds.map((gates) => gates(running)));
    console.log(`- ${label}: ${figures.map((figure, build) => `${names[build]} ${figure}`).join('; ')}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
