import { MAX_KEPT_ANSWER_BYTES, type NotKeptReason } from '../../ports/idempotency-store';
import type { CountRequest } from '../rate-limiting/count-request';

const MIB = 1024 * 1024;
const HOUR_SECONDS = 3600;
/** An account's kept answers per hour, by default: about 65,000 answers of a write (1 KiB each). */
export const DEFAULT_KEPT_MIB_PER_HOUR = 64;
/**
 * The most IDEMPOTENCY_KEPT_MIB_PER_HOUR may say: a window's count is a 32-bit integer of bytes,
 * and each of up to 64 processes may claim a sixteenth of the quota past it (count-request.ts).
 */
export const MAX_KEPT_MIB_PER_HOUR = 256;
/**
 * An account's keyed requests per hour, by default: 20 a second all hour, a fifth of the default
 * rate limit, or all of it for 12 minutes (docs/decisions.md, "Idempotency-Key", says why).
 */
export const DEFAULT_KEYS_PER_HOUR = 72_000;
/** The most IDEMPOTENCY_KEYS_PER_HOUR may say: well within a window's 32-bit count, as above. */
export const MAX_KEYS_PER_HOUR = 10_000_000;

/** Which of an account's hourly bounds refused a keyed request: its keys, or its kept answers' bytes. */
export type KeptQuota = 'keys' | 'kept_bytes';

/** A keyed request refused before it acts: which bound is spent, and when its hour's window ends. */
export interface KeptQuotaRefusal {
  readonly quota: KeptQuota;
  readonly retryAfterSeconds: number;
}

/** An account's hourly bounds; each defaults as above. */
export interface KeptBounds {
  readonly mibPerHour?: number;
  readonly keysPerHour?: number;
}

/**
 * What an account's Idempotency-Keys keep (docs/decisions.md, "Idempotency-Key"), per account and
 * per hour (windows aligned to the clock's hours, counted across every process): at most
 * `keysPerHour` keyed requests, each of which claims at most one key, and at most `mibPerHour` of
 * answers, one at most MAX_KEPT_ANSWER_BYTES long. A key is kept 24 hours, so an account holds at
 * most 25 hours' worth at once. A keyed request is admitted, before it acts, only while both
 * bounds have room; an admitted request's answer that the bytes cannot take (another request came
 * first) is still sent, not kept, and its retry is told why.
 */
export class KeptAnswers {
  private readonly bytes;
  private readonly keys;

  constructor(
    private readonly counting: CountRequest,
    { mibPerHour = DEFAULT_KEPT_MIB_PER_HOUR, keysPerHour = DEFAULT_KEYS_PER_HOUR }: KeptBounds = {},
  ) {
    if (!Number.isInteger(mibPerHour) || mibPerHour < 1 || mibPerHour > MAX_KEPT_MIB_PER_HOUR)
      throw new RangeError(`kept answers are 1 to ${MAX_KEPT_MIB_PER_HOUR} MiB an hour, not ${mibPerHour}`);
    if (!Number.isInteger(keysPerHour) || keysPerHour < 1 || keysPerHour > MAX_KEYS_PER_HOUR)
      throw new RangeError(`kept keys are 1 to ${MAX_KEYS_PER_HOUR} an hour, not ${keysPerHour}`);
    this.bytes = { name: 'kept-answers', quota: mibPerHour * MIB, windowSeconds: HOUR_SECONDS };
    this.keys = { name: 'kept-keys', quota: keysPerHour, windowSeconds: HOUR_SECONDS };
  }

  /**
   * Whether the account's next keyed request may act, counted against its keys if so; the refusal
   * otherwise. Its kept bytes must have room for the longest answer kept, as far as this process
   * knows (no round trip): past that, a request would act and most likely not be kept. Its keys
   * are counted in the shared counter, so every process together admits at most the bound.
   */
  async admission(accountId: string): Promise<KeptQuotaRefusal | null> {
    const bytes = this.counting.peek({ key: bytesKey(accountId), policy: this.bytes });
    if (bytes.remaining < MAX_KEPT_ANSWER_BYTES) return { quota: 'kept_bytes', retryAfterSeconds: bytes.resetSeconds };
    const keys = await this.counting.execute({ key: keysKey(accountId), policy: this.keys });
    return keys.allowed ? null : { quota: 'keys', retryAfterSeconds: keys.resetSeconds };
  }

  /** The key an admitted request counted was not claimed (a retry, a reused key, a failure): it counts for nothing. */
  giveBackKey(accountId: string): void {
    this.counting.giveBack({ key: keysKey(accountId), policy: this.keys });
  }

  /** Why an account's answer whose body is `bytes` long (as JSON text) is not kept; null: it is. */
  async refusal(accountId: string, bytes: number): Promise<NotKeptReason | null> {
    if (bytes > MAX_KEPT_ANSWER_BYTES) return 'too_long';
    const decision = await this.counting.execute({ key: bytesKey(accountId), policy: this.bytes, cost: bytes });
    return decision.allowed ? null : 'quota_reached';
  }
}

function keysKey(accountId: string): string {
  return `kept-keys:${accountId}`;
}

function bytesKey(accountId: string): string {
  return `kept-bytes:${accountId}`;
}
