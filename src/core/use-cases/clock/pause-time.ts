import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';

/** Holds the account's time still; refused (ClockAlreadyPaused) while it is paused. */
export class PauseTime {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly clock: WallClock,
  ) {}

  execute(input: { readonly accountId: string }): Promise<{ pausedAt: Date }> {
    return this.transactions.exclusive(input.accountId, async (repos) => {
      const now = this.clock.now();
      const paused = (await repos.travellers.getForAccount(input.accountId)).pause(now);
      await repos.travellers.save(paused);
      return { pausedAt: paused.currentTime(now) };
    });
  }
}
