import type { Duration } from '../../domain/duration';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';

export interface ShiftTimeInput {
  readonly accountId: string;
  readonly duration: Duration;
  readonly direction: 'forward' | 'backward';
}

/** Fast-forward or rewind the account's time, paused or running, within years 0001-9999. */
export class ShiftTime {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly clock: WallClock,
  ) {}

  execute(input: ShiftTimeInput): Promise<{ newTime: Date }> {
    const ms = input.direction === 'forward' ? input.duration.milliseconds : -input.duration.milliseconds;
    // The account's exclusive work: concurrent shifts add up, none is lost.
    return this.transactions.exclusive(input.accountId, async (repos) => {
      const now = this.clock.now();
      const shifted = (await repos.travellers.getForAccount(input.accountId)).shiftBy(ms, now);
      await repos.travellers.save(shifted);
      return { newTime: shifted.currentTime(now) };
    });
  }
}
