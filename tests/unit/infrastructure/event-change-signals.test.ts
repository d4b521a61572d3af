// What wakes a process's event streams (event-change-signals.ts): the database's announcements of
// an account's changes, heard once however many connections hear them, and a sweep now and then.
import { type ChangeSubscription, FeedInterrupted } from '../../../src/core/ports/event-feed';
import { EventChangeSignals } from '../../../src/infrastructure/event-changes/event-change-signals';

/** Whether the stream's next wait has ended, as seen from now on. */
function waking(stream: ChangeSubscription): { woken: boolean } {
  const state = { woken: false };
  void stream.changed().then(() => (state.woken = true));
  return state;
}

/**
 * Another account's stream, woken by an announcement of its own after those under test: once it
 * has heard it, every stream they woke has heard them (a wake resolves while it is announced).
 */
function aMarker(signals: EventChangeSignals): { afterWhatCameBefore(): Promise<void>; close(): void } {
  const marker = signals.subscribe('acc_marker');
  let version = 0;
  return {
    async afterWhatCameBefore() {
      const heard = marker.changed();
      signals.heard(`acc_marker ${++version}`);
      await heard;
    },
    close: () => marker.close(),
  };
}

describe('EventChangeSignals', () => {
  it("wakes an account's streams once per version heard, not for another account", async () => {
    const signals = new EventChangeSignals({ suspended: false });
    const stream = signals.subscribe('acc_1');
    const marker = aMarker(signals);
    const first = waking(stream);
    signals.heard('acc_2 9');
    await marker.afterWhatCameBefore();
    expect(first.woken).toBe(false);
    signals.heard('acc_1 5');
    await marker.afterWhatCameBefore();
    expect(first.woken).toBe(true);
    // The same announcement again (heard by a second connection): nothing more to read.
    const again = waking(stream);
    signals.heard('acc_1 5');
    await marker.afterWhatCameBefore();
    expect(again.woken).toBe(false);
    signals.heard('acc_1 6');
    await marker.afterWhatCameBefore();
    expect(again.woken).toBe(true);
    stream.close();
    marker.close();
  });

  describe('on a fake clock', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('wakes every stream at each sweep, announced or not', async () => {
      const signals = new EventChangeSignals({ suspended: false, sweepMs: 30 });
      const [stream, other] = [signals.subscribe('acc_1'), signals.subscribe('acc_2')];
      const [first, second] = [waking(stream), waking(other)];
      await jest.advanceTimersByTimeAsync(29);
      expect([first.woken, second.woken]).toEqual([false, false]);
      await jest.advanceTimersByTimeAsync(1);
      expect([first.woken, second.woken]).toEqual([true, true]);
      const next = waking(stream);
      await jest.advanceTimersByTimeAsync(30);
      expect(next.woken).toBe(true);
      stream.close();
      other.close();
    });
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
