// The password work's pool over threads the test holds: what starts when, what waits and why,
// what is refused and when to come back. No real thread runs here (password-threads.test.ts).
import { PasswordChecksBusy } from '../../../src/core/domain/errors';
import { PasswordWorkWithdrawn, type PasswordWorkTurn } from '../../../src/core/ports/password-work';
import {
  PasswordPool,
  type PasswordWorkEvents,
  type WaitReason,
} from '../../../src/infrastructure/passwords/password-pool';
import type { PasswordTask, PasswordTaskKind } from '../../../src/infrastructure/passwords/password-tasks';
import { HeldThreads, settle } from '../../support/passwords/held-threads';
import { startInMemoryTracing } from '../../support/telemetry/in-memory-tracing';

/** The events the pool tells, kept. */
class KeptEvents implements PasswordWorkEvents {
  readonly waits: { kind: PasswordTaskKind; reason: WaitReason; seconds: number }[] = [];
  readonly runs: { kind: PasswordTaskKind; seconds: number }[] = [];
  readonly refusals: PasswordTaskKind[] = [];
  readonly withdrawals: PasswordTaskKind[] = [];
  waited(kind: PasswordTaskKind, reason: WaitReason, seconds: number): void {
    this.waits.push({ kind, reason, seconds });
  }
  ran(kind: PasswordTaskKind, seconds: number): void {
    this.runs.push({ kind, seconds });
  }
  refused(kind: PasswordTaskKind): void {
    this.refusals.push(kind);
  }
  withdrawn(kind: PasswordTaskKind): void {
    this.withdrawals.push(kind);
  }
}

const verifyTask = (label: string) =>
  ({
    kind: 'verify',
    presented: { typed: label, normalised: label },
    stored: 'scrypt2$...',
    current: { N: 1024, r: 8, p: 1 },
  }) as const;
const turnOf = (clientAddress: string, knownDevice = false): PasswordWorkTurn => ({ clientAddress, knownDevice });
const labelOf = (task: PasswordTask) => (task.kind === 'verify' ? task.presented.typed : task.kind);

function aPool(threads: number, queued: number) {
  let now = 0;
  const held = new HeldThreads(threads);
  const events = new KeptEvents();
  const pool = new PasswordPool(held, { queued, events, now: () => now });
  return { pool, held, events, advance: (ms: number) => (now += ms) };
}

it('runs as many as it has threads at once; the rest start in turn by address as threads free', async () => {
  const { pool, held } = aPool(1, 10);
  const answers = ['a1', 'a2', 'a3', 'b1', 'c1'].map((label) => pool.run(verifyTask(label), turnOf(label[0] ?? '')));
  await settle();
  expect(held.started.map(labelOf)).toEqual(['a1']);
  expect(pool.stats()).toEqual({ threads: 1, running: 1, queued: 4 });

  for (let step = 0; step < 5; step++) await held.finishOldest('done');
  expect(held.started.map(labelOf)).toEqual(['a1', 'b1', 'c1', 'a2', 'a3']);
  await expect(Promise.all(answers)).resolves.toHaveLength(5);
  expect(pool.stats()).toEqual({ threads: 1, running: 0, queued: 0 });
});

it("starts a known browser's work before the others waiting, even from a busy address", async () => {
  const { pool, held } = aPool(1, 10);
  void pool.run(verifyTask('a1'), turnOf('a'));
  void pool.run(verifyTask('a2'), turnOf('a'));
  void pool.run(verifyTask('b1'), turnOf('b'));
  void pool.run(verifyTask('owner'), turnOf('a', true));
  await settle();
  await held.finishOldest('done');
  expect(held.started.map(labelOf)).toEqual(['a1', 'owner']);
});

it('says why each piece of work waited and for how long, and tells the request how long it waited', async () => {
  const { pool, held, events, advance } = aPool(1, 10);
  const told: number[] = [];
  void pool.run(verifyTask('a1'), turnOf('a'));
  void pool.run(verifyTask('a2'), turnOf('a'));
  void pool.run(verifyTask('b1'), { clientAddress: 'b', knownDevice: false, onWait: (ms) => told.push(ms) });
  void pool.run(verifyTask('k1'), turnOf('k', true));
  await settle();
  advance(250);
  for (let step = 0; step < 4; step++) await held.finishOldest('done');

  expect(events.waits).toEqual([
    { kind: 'verify', reason: 'none', seconds: 0 },
    { kind: 'verify', reason: 'known_device', seconds: 0.25 },
    { kind: 'verify', reason: 'other_addresses', seconds: 0.25 },
    { kind: 'verify', reason: 'own_address', seconds: 0.25 },
  ]);
  expect(told).toEqual([250]);
  expect(events.runs.map((run) => run.kind)).toEqual(['verify', 'verify', 'verify', 'verify']);
});

it('refuses work past its bound with PasswordChecksBusy, saying when the queue will have started', async () => {
  const { pool, held, events, advance } = aPool(1, 2);
  // Runs of 3 s each: the estimate of the queue's time follows them.
  for (let run = 0; run < 10; run++) {
    const answer = pool.run(verifyTask(`x${run}`), turnOf('x'));
    await settle();
    advance(3_000);
    await held.finishOldest('done');
    await answer;
  }
  void pool.run(verifyTask('a1'), turnOf('a'));
  void pool.run(verifyTask('a2'), turnOf('a'));
  void pool.run(verifyTask('a3'), turnOf('a'));
  const refused = pool.run(verifyTask('a4'), turnOf('a'));

  await expect(refused).rejects.toBeInstanceOf(PasswordChecksBusy);
  const busy: unknown = await refused.catch((error: unknown) => error);
  // Two waiting, about 3 s each on one thread: some 6 s.
  expect(busy instanceof PasswordChecksBusy && busy.retryAfterSeconds).toBeGreaterThanOrEqual(5);
  expect(busy instanceof PasswordChecksBusy && busy.retryAfterSeconds).toBeLessThanOrEqual(6);
  expect(events.refusals).toEqual(['verify']);
  expect(held.started.map(labelOf).slice(-1)).toEqual(['a1']);
});

it("refuses the newest of the address holding most, rather than another address's first", async () => {
  const { pool, held } = aPool(1, 2);
  void pool.run(verifyTask('a1'), turnOf('a'));
  const a2 = pool.run(verifyTask('a2'), turnOf('a'));
  const a3 = pool.run(verifyTask('a3'), turnOf('a'));
  const b1 = pool.run(verifyTask('b1'), turnOf('b'));
  await expect(a3).rejects.toBeInstanceOf(PasswordChecksBusy);
  for (let step = 0; step < 3; step++) await held.finishOldest('done');
  await expect(Promise.all([a2, b1])).resolves.toEqual(['done', 'done']);
  expect(held.started.map(labelOf)).toEqual(['a1', 'b1', 'a2']);
});

it('drops work whose client went away while it waited, and never starts it; what runs ends as it would', async () => {
  const { pool, held, events } = aPool(1, 10);
  const leaving = new AbortController();
  const leavingRunning = new AbortController();
  const running = pool.run(verifyTask('a1'), { ...turnOf('a'), clientGone: leavingRunning.signal });
  const gone = pool.run(verifyTask('b1'), { ...turnOf('b'), clientGone: leaving.signal });
  const stays = pool.run(verifyTask('c1'), turnOf('c'));
  await settle();
  expect(pool.stats()).toEqual({ threads: 1, running: 1, queued: 2 });

  leaving.abort();
  leavingRunning.abort();
  await expect(gone).rejects.toBeInstanceOf(PasswordWorkWithdrawn);
  expect(pool.stats()).toEqual({ threads: 1, running: 1, queued: 1 });
  expect(events.withdrawals).toEqual(['verify']);

  await held.finishOldest('a done');
  await expect(running).resolves.toBe('a done');
  await held.finishOldest('c done');
  await expect(stays).resolves.toBe('c done');
  expect(held.started.map(labelOf)).toEqual(['a1', 'c1']);
});

it('never starts the work of a client already gone, even with a thread free', async () => {
  const { pool, held, events } = aPool(1, 10);
  const gone = new AbortController();
  gone.abort();
  await expect(pool.run(verifyTask('a1'), { ...turnOf('a'), clientGone: gone.signal })).rejects.toBeInstanceOf(
    PasswordWorkWithdrawn,
  );
  expect(held.started).toEqual([]);
  expect(events.withdrawals).toEqual(['verify']);
  expect(pool.stats()).toEqual({ threads: 1, running: 0, queued: 0 });
});

it("passes a thread's failure on, and keeps serving", async () => {
  const { pool, held } = aPool(1, 10);
  const failing = pool.run(verifyTask('a1'), turnOf('a'));
  const next = pool.run(verifyTask('b1'), turnOf('b'));
  await settle();
  await held.failOldest(new Error('out of memory'));
  await expect(failing).rejects.toThrow('out of memory');
  await held.finishOldest('done');
  await expect(next).resolves.toBe('done');
});

it('fails what waits when closed, and closes its threads', async () => {
  const { pool, held } = aPool(1, 10);
  void pool.run(verifyTask('a1'), turnOf('a'));
  const waiting = pool.run(verifyTask('b1'), turnOf('b'));
  await pool.close();
  await expect(waiting).rejects.toThrow('closed');
  expect(held.closed).toBe(true);
  await expect(pool.run(verifyTask('c1'), turnOf('c'))).rejects.toThrow('closed');
});

it('makes each piece of work a span, child of the one that asked for it: its wait, or its refusal', async () => {
  const tracing = startInMemoryTracing();
  try {
    let now = 0;
    const held = new HeldThreads(1);
    const pool = new PasswordPool(held, { queued: 1, tracer: tracing.tracer, now: () => now });
    await tracing.tracer.startActiveSpan('LogIn', async (parent) => {
      const first = pool.run(verifyTask('a1'), turnOf('a'));
      const second = pool.run(verifyTask('b1'), turnOf('b'));
      await expect(pool.run(verifyTask('c1'), turnOf('c'))).rejects.toBeInstanceOf(PasswordChecksBusy);
      now += 40;
      await held.finishOldest('done');
      await held.finishOldest('done');
      await Promise.all([first, second]);
      parent.end();
    });

    const spans = tracing.named('password verify');
    const parent = tracing.named('LogIn')[0];
    expect(spans.map((span) => span.parentSpanContext?.spanId)).toEqual(Array(3).fill(parent?.spanContext().spanId));
    expect(spans.map((span) => span.attributes)).toEqual([
      { 'tns.password_work.kind': 'verify', 'error.type': 'password_checks_busy' },
      { 'tns.password_work.kind': 'verify', 'tns.password_work.wait_reason': 'none', 'tns.password_work.wait_ms': 0 },
      {
        'tns.password_work.kind': 'verify',
        'tns.password_work.wait_reason': 'other_addresses',
        'tns.password_work.wait_ms': 40,
      },
    ]);
  } finally {
    await tracing.close();
  }
});
