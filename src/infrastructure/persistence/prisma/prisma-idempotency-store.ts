import { IdempotencyClaimLost, IdempotencyStore, type Reservation, type StoredResponse } from '../../../core/ports/idempotency-store';
import type { WallClock } from '../../../core/ports/wall-clock';
import type { PrismaClient } from './generated/client';
import type { RequestTransactions } from './request-transactions';

const HOUR_MS = 3_600_000;
/** Stripe keeps keys 24 hours; a retry after that acts again. */
export const IDEMPOTENCY_RETENTION_MS = 24 * HOUR_MS;
/**
 * A reservation still unanswered after this long belongs to a process that died mid-request (no
 * request lives longer: SIGTERM gives in-flight ones 10 s); a retry may then take the key over.
 */
export const ABANDONED_RESERVATION_MS = 5 * 60_000;
/** Expired keys of every account are cleared at most this often per process. */
const SWEEP_INTERVAL_MS = 60_000;

export class PrismaIdempotencyStore extends IdempotencyStore {
  private lastSweep = 0;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly requests: RequestTransactions,
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
      const claimed = await this.prisma.$queryRaw<Array<{ key: string }>>`
        INSERT INTO idempotency_keys (account_id, key, request_digest, created_at)
        VALUES (${accountId}, ${key}, ${requestDigest}, ${now})
        ON CONFLICT (account_id, key) DO UPDATE SET
          request_digest = EXCLUDED.request_digest, created_at = EXCLUDED.created_at,
          response_status = NULL, response_body = NULL, response_headers = NULL
        WHERE idempotency_keys.created_at <= ${expiredBefore}
           OR (idempotency_keys.response_status IS NULL AND idempotency_keys.created_at <= ${abandonedBefore})
        RETURNING key`;
      if (claimed.length > 0) return { outcome: 'reserved' };
      const row = await this.prisma.idempotencyKey.findUnique({ where: { accountId_key: { accountId, key } } });
      if (!row) continue;
      if (row.requestDigest !== requestDigest) return { outcome: 'reused' };
      if (row.responseStatus === null) return { outcome: 'in_progress' };
      return { outcome: 'replay', response: { status: row.responseStatus, body: row.responseBody, headers: stringRecord(row.responseHeaders) } };
    }
    return { outcome: 'in_progress' };
  }

  answerOnce(accountId: string, key: string, produce: () => Promise<StoredResponse>): Promise<StoredResponse> {
    return this.requests.run(produce, async (db, response) => {
      const kept = await db.$executeRaw`
        UPDATE idempotency_keys
        SET response_status = ${response.status},
            response_body = ${JSON.stringify(response.body ?? null)}::jsonb,
            response_headers = ${JSON.stringify(response.headers)}::jsonb
        WHERE account_id = ${accountId} AND key = ${key} AND response_status IS NULL`;
      // The claim is gone (taken over as abandoned, or swept): another request acts under this key,
      // so this one must not; failing here rolls its writes back.
      if (kept !== 1) throw new IdempotencyClaimLost(key);
    });
  }

  async release(accountId: string, key: string): Promise<void> {
    await this.prisma.idempotencyKey.deleteMany({ where: { accountId, key, responseStatus: null } });
  }

  /** Opportunistic clean-up, so the table holds about one day of keys without a separate job. */
  private async sweep(now: Date): Promise<void> {
    if (now.getTime() - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now.getTime();
    await this.prisma.idempotencyKey.deleteMany({ where: { createdAt: { lte: new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS) } } });
  }
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
