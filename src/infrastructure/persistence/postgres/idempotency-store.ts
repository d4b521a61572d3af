import {
  IdempotencyStore,
  type KeyClaim,
  type Reservation,
  type StoredResponse,
} from '../../../core/ports/idempotency-store';
import type { WallClock } from '../../../core/ports/wall-clock';
import type { PrismaClient } from '../prisma/generated/client';
import type { SqlRunner } from './sql-runner';
import { CLAIM, READ_KEY } from './statements/idempotency-keys';
import type { KeyedRequests } from './unit-of-work/keyed-requests';

const HOUR_MS = 3_600_000;
/** Stripe keeps keys 24 hours; a retry after that acts again. */
export const IDEMPOTENCY_RETENTION_MS = 24 * HOUR_MS;
/**
 * A reservation still unanswered after this long belongs to a process that died mid-request (no
 * request lives longer: SIGTERM gives in-flight ones 10 s); a retry may then take the key over.
 */
export const ABANDONED_RESERVATION_MS = 5 * 60_000;
/**
 * A reservation younger than this most likely belongs to a request still running (each of its
 * database waits is bounded, DATABASE_TIMEOUT_MS): a retry in a second will find its answer.
 */
const LIVE_REQUEST_MS = 30_000;
/** Expired keys of every account are cleared at most this often per process. */
const SWEEP_INTERVAL_MS = 60_000;

export class PostgresIdempotencyStore extends IdempotencyStore {
  private lastSweep = 0;

  constructor(
    private readonly prisma: PrismaClient,
    /** For the claims, made by every keyed request. */
    private readonly sql: SqlRunner,
    private readonly keyed: KeyedRequests,
    private readonly clock: WallClock,
  ) {
    super();
  }

  async reserve(accountId: string, key: string, requestDigest: string): Promise<Reservation> {
    const now = this.clock.now();
    await this.sweep(now);
    const expiredBefore = new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS);
    const abandonedBefore = new Date(now.getTime() - ABANDONED_RESERVATION_MS);
    // A key released between the insert and the read leaves no row: try again, a few times at most.
    for (let attempt = 0; attempt < 3; attempt++) {
      // One statement claims a new key or an expired one; a live key is left as it is.
      const claimed = await CLAIM.run(this.sql, { accountId, key, requestDigest, now, expiredBefore, abandonedBefore });
      if (claimed.length > 0) return { outcome: 'reserved', claim: { accountId, key, claimedAt: now } };
      const [row] = await READ_KEY.run(this.sql, { accountId, key });
      if (!row) continue;
      if (row.requestDigest !== requestDigest) return { outcome: 'reused' };
      if (row.responseStatus === null)
        return {
          outcome: 'in_progress',
          retryAfterMs: retryAfterMs(now.getTime() - row.createdAt.getTime()),
        };
      return {
        outcome: 'replay',
        response: { status: row.responseStatus, body: row.responseBody, headers: stringRecord(row.responseHeaders) },
      };
    }
    // Released under it each time: the key is free, a retry may act at once.
    return { outcome: 'in_progress', retryAfterMs: 0 };
  }

  /** The answer and what producing it wrote, in one statement (unit-of-work/keyed-requests.ts). */
  answerOnce(claim: KeyClaim, produce: () => Promise<StoredResponse>): Promise<StoredResponse> {
    const { accountId, key } = claim;
    return this.keyed.answer(claim, produce, (response, writes) =>
      // Only on the claim still unanswered: one taken over as abandoned, or swept, is another request's.
      writes.update(
        'idempotency_keys',
        { account_id: accountId, key, response_status: null },
        {
          response_status: response.status,
          response_body: JSON.stringify(response.body ?? null),
          response_headers: JSON.stringify(response.headers),
        },
      ),
    );
  }

  async release({ accountId, key, claimedAt }: KeyClaim): Promise<void> {
    await this.prisma.idempotencyKey.deleteMany({
      where: { accountId, key, createdAt: claimedAt, responseStatus: null },
    });
  }

  /** Opportunistic clean-up, so the table holds about one day of keys without a separate job. */
  private async sweep(now: Date): Promise<void> {
    if (now.getTime() - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now.getTime();
    await this.prisma.idempotencyKey.deleteMany({
      where: { createdAt: { lte: new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS) } },
    });
  }
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/** How long a retry should wait for a reservation of this age: a second while its request may still be running,
 * else until the reservation counts as abandoned and the retry may take the key over. */
function retryAfterMs(age: number): number {
  return age < LIVE_REQUEST_MS ? 1_000 : ABANDONED_RESERVATION_MS - age;
}
