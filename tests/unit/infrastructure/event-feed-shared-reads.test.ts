// PostgresEventFeed shares a read in flight between streams woken together that watch alike, but
// never gives a stream a read that started before the signal that woke it: that read may not see
// the change the stream was woken for.
import { TimeRange } from '../../../src/core/domain/time-range';
import { EventChangeSignals } from '../../../src/infrastructure/event-changes/event-change-signals';
import { PostgresEventFeed } from '../../../src/infrastructure/persistence/postgres/event-feed';
import type { SqlRunner } from '../../../src/infrastructure/database/driver/sql-runner';
import { waitFor } from '../../support/wait-for';

/** A runner whose statements wait until the test answers them, counted. */
function heldRunner() {
  const pending: Array<(rows: unknown[]) => void> = [];
  const runner: SqlRunner = {
    query: <T>() => new Promise<T[]>((resolve) => pending.push(resolve as (rows: unknown[]) => void)),
  };
  return { runner, pending };
}

const WATCHED = {
  accountId: 'acc_1',
  timelineId: 'primary',
  place: 'Globe Theatre',
  range: TimeRange.parse('1600-01-01T00:00:00Z/1600-01-02T00:00:00Z'),
};
const AFTER = { version: '4', eventId: null };

describe('shared reads of event changes', () => {
  it('shares one read between streams that ask alike after the same signal', async () => {
    const signals = new EventChangeSignals({ suspended: false });
    const held = heldRunner();
    const feed = new PostgresEventFeed(held.runner, signals);
    feed.subscribe('acc_1');
    signals.heard('acc_1 5');
    const reads = [feed.changesAfter(WATCHED, AFTER, 100), feed.changesAfter(WATCHED, AFTER, 100)];
    // One read: the account's version, then its changes.
    expect(held.pending).toHaveLength(1);
    held.pending[0]?.([{ version: '6' }]);
    await waitFor(() => held.pending.length === 2, { what: 'the changes read after the version' });
    held.pending[1]?.([]);
    const read = { changes: [], through: '6' };
    expect(await Promise.all(reads)).toEqual([read, read]);
  });

  it('starts a read of its own for a stream woken by a signal heard after the read in flight began', () => {
    const signals = new EventChangeSignals({ suspended: false });
    const held = heldRunner();
    const feed = new PostgresEventFeed(held.runner, signals);
    feed.subscribe('acc_1');
    signals.heard('acc_1 5');
    void feed.changesAfter(WATCHED, AFTER, 100);
    signals.heard('acc_1 6');
    void feed.changesAfter(WATCHED, AFTER, 100);
    expect(held.pending).toHaveLength(2);
  });

  it('does not share between different places, positions or accounts', () => {
    const signals = new EventChangeSignals({ suspended: false });
    const held = heldRunner();
    const feed = new PostgresEventFeed(held.runner, signals);
    void feed.changesAfter(WATCHED, AFTER, 100);
    void feed.changesAfter({ ...WATCHED, place: 'Rose Theatre' }, AFTER, 100);
    void feed.changesAfter(WATCHED, { version: '5', eventId: null }, 100);
    void feed.changesAfter({ ...WATCHED, accountId: 'acc_2' }, AFTER, 100);
    expect(held.pending).toHaveLength(4);
  });
});
