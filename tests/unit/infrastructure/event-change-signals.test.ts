// What wakes a process's event streams (event-change-signals.ts): the database's announcements of
// an account's changes, heard once however many connections hear them, and a sweep now and then.
import { FeedInterrupted } from '../../../src/core/ports/event-feed';
import { EventChangeSignals } from '../../../src/infrastructure/event-changes/event-change-signals';

const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise.then(() => 'woken'), new Promise((resolve) => setTimeout(() => resolve('asleep'), ms))]);

describe('EventChangeSignals', () => {
  it("wakes an account's streams once per version heard, not for another account", async () => {
    const signals = new EventChangeSignals({ suspended: false });
    const stream = signals.subscribe('acc_1');
    const first = stream.changed();
    signals.heard('acc_2 9');
    expect(await within(first, 20)).toBe('asleep');
    signals.heard('acc_1 5');
    expect(await within(first, 20)).toBe('woken');
    // The same announcement again (heard by a second connection): nothing more to read.
    signals.heard('acc_1 5');
    expect(await within(stream.changed(), 20)).toBe('asleep');
    stream.close();
  });

  it('wakes every stream at each sweep, announced or not', async () => {
    const signals = new EventChangeSignals({ suspended: false, sweepMs: 30 });
    const stream = signals.subscribe('acc_1');
    expect(await within(stream.changed(), 200)).toBe('woken');
    stream.close();
  });

  it('ends the streams waiting and refuses new ones while suspended, until it resumes', async () => {
    const signals = new EventChangeSignals({ suspended: false });
    const waiting = signals.subscribe('acc_1').changed();
    signals.suspend();
    await expect(waiting).rejects.toThrow(FeedInterrupted);
    expect(() => signals.subscribe('acc_1')).toThrow(FeedInterrupted);
    signals.resume();
    signals.subscribe('acc_1').close();
  });
});
