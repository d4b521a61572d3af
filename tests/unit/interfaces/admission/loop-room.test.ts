import { LeftTheQueue, type WhenGone } from '../../../../src/interfaces/http/admission/admission-gate';
import { LocalAdmission } from '../../../../src/interfaces/http/admission/local-admission';
import { type LoopLoad, LoopRoom, processLoop } from '../../../../src/interfaces/http/admission/loop-room';
import { waitFor } from '../../../support/wait-for';

/** A loop whose utilization the test sets, and whose readings it takes. */
function loopAt(utilization: number) {
  const listeners = new Set<() => void>();
  const load: LoopLoad & { now: number; read(): void; listening(): number } = {
    now: utilization,
    utilization: () => load.now,
    onReading(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    read: () => listeners.forEach((listener) => listener()),
    listening: () => listeners.size,
  };
  return load;
}

const never: WhenGone = () => undefined;
const settle = () => new Promise((resolve) => setImmediate(resolve));
const HEAVY = 9;

/** Whether the promise has settled, and how. */
function track<T>(promise: Promise<T>) {
  const state: { value?: T; error?: unknown } = {};
  promise.then(
    (value) => (state.value = value),
    (error: unknown) => (state.error = error),
  );
  return state;
}

describe('room on the event loop for heavier requests', () => {
  it('starts a heavy request at once while the loop is under its bound', async () => {
    const room = new LoopRoom(0.6, () => loopAt(0.59));
    await expect(room.afterTurn(HEAVY, never, () => undefined)).resolves.toBe(0);
  });

  it('never holds an ordinary request, however busy the loop', async () => {
    const room = new LoopRoom(0.6, () => loopAt(1));
    await expect(room.afterTurn(1, never, () => undefined)).resolves.toBe(0);
    expect(room.holding).toBe(0);
  });

  it('holds heavier requests while the loop is at its bound, then starts them together, oldest first', async () => {
    const load = loopAt(0.6);
    const room = new LoopRoom(0.6, () => load);
    const order: string[] = [];
    const first = track(room.afterTurn(2, never, () => undefined).then((ms) => (order.push('first'), ms)));
    const second = track(room.afterTurn(HEAVY, never, () => undefined).then((ms) => (order.push('second'), ms)));
    await settle();
    expect(room.holding).toBe(2);
    load.read();
    await settle();
    expect([first.value, second.value]).toEqual([undefined, undefined]);
    load.now = 0.3;
    load.read();
    await settle();
    expect(order).toEqual(['first', 'second']);
    expect(first.value).toBeGreaterThanOrEqual(0);
    expect(room.holding).toBe(0);
    expect(load.listening()).toBe(0);
  });

  it('holds one that comes while others are held until the next reading, so none jumps ahead', async () => {
    const load = loopAt(0.9);
    const room = new LoopRoom(0.6, () => load);
    const held = track(room.afterTurn(HEAVY, never, () => undefined));
    await settle();
    load.now = 0.1;
    const later = track(room.afterTurn(HEAVY, never, () => undefined));
    await settle();
    expect([held.value, later.value]).toEqual([undefined, undefined]);
    load.read();
    await settle();
    expect(held.value).toBeDefined();
    expect(later.value).toBeDefined();
  });

  it('starts a held request after its longest hold, though the loop stays busy', async () => {
    const load = loopAt(1);
    const room = new LoopRoom(0.6, () => load, 30);
    const held = track(room.afterTurn(HEAVY, never, () => undefined));
    await settle();
    load.read();
    await settle();
    expect(held.value).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 40));
    load.read();
    await settle();
    expect(held.value).toBeGreaterThanOrEqual(30);
  });

  it('lets a held request whose client went away leave, giving its turn back, and stops reading the loop', async () => {
    const load = loopAt(0.9);
    const room = new LoopRoom(0.6, () => load);
    let goAway = () => undefined as void;
    let turnsGivenBack = 0;
    const gone = track(
      room.afterTurn(
        HEAVY,
        (listener) => (goAway = listener),
        () => turnsGivenBack++,
      ),
    );
    await settle();
    expect(load.listening()).toBe(1);
    goAway();
    await settle();
    expect(gone.error).toBeInstanceOf(LeftTheQueue);
    expect(turnsGivenBack).toBe(1);
    expect(room.holding).toBe(0);
    expect(load.listening()).toBe(0);
  });

  it('holds nothing with a bound of 1 (HEAVY_WORK_LOOP_PERCENT=100), and refuses a bound of 0', async () => {
    const room = new LoopRoom(1, () => loopAt(1));
    await expect(room.afterTurn(HEAVY, never, () => undefined)).resolves.toBe(0);
    expect(() => new LoopRoom(0)).toThrow(RangeError);
  });

  it("counts a held request's wait as 'loop' in its gate's waits, by cost class", async () => {
    const load = loopAt(0.9);
    const gate = new LocalAdmission(
      { running: 4, queued: 4 },
      { running: 100, queued: 10 },
      new LoopRoom(0.6, () => load),
    );
    const light = track(gate.enter('acc_a', never, { cost: 1, weight: 1 }));
    const heavy = track(gate.enter('acc_b', never, { cost: 1, weight: HEAVY }));
    await settle();
    expect(light.value?.loopMs).toBe(0);
    expect(heavy.value).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 5));
    load.now = 0.2;
    load.read();
    await settle();
    expect(heavy.value?.loopMs).toBeGreaterThan(0);
    expect(gate.waits.waited.get('loop/heavy')?.requests).toBe(1);
    expect(gate.waits.waited.get('loop/light')).toBeUndefined();
  });
});

describe("the process's event loop as read", () => {
  /** Keeps the loop busy for `ms`, in slices of 10 ms of synchronous work, with only immediates between. */
  async function busyFor(ms: number) {
    const until = performance.now() + ms;
    while (performance.now() < until) {
      const slice = performance.now() + 10;
      while (performance.now() < slice);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  it('reads a loop kept busy as near fully used, and an idle one as little used', async () => {
    const load = processLoop();
    await busyFor(250);
    expect(load.utilization()).toBeGreaterThan(0.8);
    // Idle from here: within a window or so it reads as little used. On a machine busy with other
    // work the readings' timer can run late, so the wait is for the reading, bounded, not a fixed sleep.
    const idle = await waitFor(
      () => {
        const utilization = load.utilization();
        return utilization < 0.5 && { utilization };
      },
      { what: 'an idle loop to read as under half used', timeoutMs: 3000 },
    );
    expect(idle.utilization).toBeLessThan(0.5);
  });
});
