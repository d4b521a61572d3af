import { StreamSlots } from '../../../core/ports/stream-slots';
import type { SqlRunner } from '../../database/driver/sql-runner';
import { HELD_SLOTS, RELEASE_SLOT, RENEW_SLOTS, TAKE_SLOT } from './statements/stream-slots';

/** Each try takes a slot or loses a race for one, which the next try sees held: a few are plenty. */
const TRIES = 5;

/** Slots as rows of `event_stream_slots`, one per slot of an account that ever streamed (schema.prisma). */
export class PostgresStreamSlots extends StreamSlots {
  constructor(private readonly sql: SqlRunner) {
    super();
  }

  async take(
    { apiKeyId, accountId }: { readonly apiKeyId: string; readonly accountId: string },
    holder: string,
    limit: number,
    leaseMs: number,
  ): Promise<boolean> {
    for (let attempt = 0; attempt < TRIES; attempt += 1) {
      const taken = await TAKE_SLOT.run(this.sql, { apiKeyId, accountId, holder, limit, leaseMs });
      if (taken.length > 0) return true;
      // Nothing taken: every slot is held, or another stream took the one this try chose.
      if (!(await this.anyFree(accountId, limit))) return false;
    }
    return false;
  }

  async renew(holders: readonly string[], leaseMs: number): Promise<string[]> {
    if (holders.length === 0) return [];
    const renewed = await RENEW_SLOTS.run(this.sql, { holders, leaseMs });
    return renewed.map((row) => row.holder);
  }

  async release(accountId: string, holder: string): Promise<void> {
    await RELEASE_SLOT.run(this.sql, { accountId, holder });
  }

  private async anyFree(accountId: string, limit: number): Promise<boolean> {
    const [count] = await HELD_SLOTS.run(this.sql, { accountId });
    return Number(count?.held ?? 0) < limit;
  }
}
