import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';

/** Lets time run on from exactly where it was paused; refused (ClockAlreadyRunning) while running. */
export class ResumeTime {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly clock: WallClock,
  ) {}

  execute(input: { readonly accountId: string }): Promise<{ currentTime: Date }> {
    return this.transactions.exclusive(input.accountId, async (repos) => {
      const now = this.clock.now();
      const running = (await repos.travellers.getForAccount(input.accountId)).resume(now);
      await repos.travellers.save(running);
      return { currentTime: running.currentTime(now) };
    });
  }
}
