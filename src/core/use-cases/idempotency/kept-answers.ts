import { MAX_KEPT_ANSWER_BYTES, type NotKeptReason } from '../../ports/idempotency-store';
import type { CountRequest } from '../rate-limiting/count-request';

const MIB = 1024 * 1024;
/** An account's kept answers per hour, by default: about 65,000 answers of a write (1 KiB each). */
export const DEFAULT_KEPT_MIB_PER_HOUR = 64;
/**
 * The most IDEMPOTENCY_KEPT_MIB_PER_HOUR may say: a window's count is a 32-bit integer of bytes,
 * and each of up to 64 processes may claim a sixteenth of the quota past it (count-request.ts).
 */
export const MAX_KEPT_MIB_PER_HOUR = 256;

/**
 * Which answers of keyed requests are kept for their retries (docs/decisions.md, "Idempotency-Key"):
 * one at most MAX_KEPT_ANSWER_BYTES long, and per account at most `mibPerHour` of them in each hour
 * (windows aligned to the clock's hours, counted across every process). A key is kept 24 hours, so
 * an account holds at most 25 hours' worth at once. Past either bound the request is still done and
 * answered; its retry is told the answer was not kept, and why.
 */
export class KeptAnswers {
  private readonly policy;

  constructor(
    private readonly counting: CountRequest,
    mibPerHour: number = DEFAULT_KEPT_MIB_PER_HOUR,
  ) {
    if (!Number.isInteger(mibPerHour) || mibPerHour < 1 || mibPerHour > MAX_KEPT_MIB_PER_HOUR)
      throw new RangeError(`kept answers are 1 to ${MAX_KEPT_MIB_PER_HOUR} MiB an hour, not ${mibPerHour}`);
    this.policy = { name: 'kept-answers', quota: mibPerHour * MIB, windowSeconds: 3600 };
  }

  /** Why an account's answer whose body is `bytes` long (as JSON text) is not kept; null: it is. */
  async refusal(accountId: string, bytes: number): Promise<NotKeptReason | null> {
    if (bytes > MAX_KEPT_ANSWER_BYTES) return 'too_long';
    const decision = await this.counting.execute({ key: `kept-bytes:${accountId}`, policy: this.policy, cost: bytes });
    return decision.allowed ? null : 'quota_reached';
  }
}
