import {
  IdempotencyClaimLost,
  IdempotencyStore,
  type Reservation,
  type StoredResponse,
} from '../../../core/ports/idempotency-store';
import type { WallClock } from '../../../core/ports/wall-clock';
import { isRefusedByDatabase } from '../../database/prisma-client';
import type { PrismaClient } from './generated/client';
import type { PendingWrites } from './optimistic/deferred-request';
import type { RequestTransactions } from './request-transactions';
import { prismaSql, type SqlRunner } from './sql-runner';

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

export class PrismaIdempotencyStore extends IdempotencyStore {
  private lastSweep = 0;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly requests: RequestTransactions,
    private readonly clock: WallClock,
    /** For the statements of every keyed request (see SqlRunner). */
    private readonly sql: SqlRunner = prismaSql(prisma),
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
      const claimed = await this.sql.query<{ key: string }>(CLAIM, [
        accountId,
        key,
        requestDigest,
        now,
        expiredBefore,
        abandonedBefore,
      ]);
      if (claimed.length > 0) return { outcome: 'reserved' };
      const [row] = await this.sql.query<KeyRow>(READ_KEY, [accountId, key]);
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

  /**
   * First as a deferred request (optimistic/deferred-request.ts): the answer and the writes in one
   * statement, no transaction. In the request transaction when that cannot decide (the request
   * needs it, another writer came first, PostgreSQL refused the statement): the run there is the
   * one that counts, and it meets and reports whatever refused the first.
   */
  async answerOnce(accountId: string, key: string, produce: () => Promise<StoredResponse>): Promise<StoredResponse> {
    const deferred = await this.requests.runDeferred(produce);
    if (deferred) {
      const kept = await this.keepWith(deferred.pending, accountId, key, deferred.result).catch((error: unknown) => {
        if (isRefusedByDatabase(error)) return 'rerun' as const;
        throw error;
      });
      if (kept === 'kept') return deferred.result;
      if (kept === 'claim-lost') throw new IdempotencyClaimLost(key);
    }
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

  /** The answer kept with the pending writes, in their transaction, or alone when the request left none. */
  private async keepWith(
    pending: PendingWrites | null,
    accountId: string,
    key: string,
    response: StoredResponse,
  ): Promise<'kept' | 'claim-lost' | 'rerun'> {
    const keep = async (sql: SqlRunner) => (await sql.query(KEEP, keptValues(accountId, key, response))).length === 1;
    if (!pending) return (await keep(this.sql)) ? 'kept' : 'claim-lost';
    const outcome = await pending.apply(keep);
    return outcome === 'applied' ? 'kept' : outcome === 'conflict' ? 'rerun' : 'claim-lost';
  }

  async release(accountId: string, key: string): Promise<void> {
    await this.prisma.idempotencyKey.deleteMany({ where: { accountId, key, responseStatus: null } });
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

type KeyRow = {
  requestDigest: string;
  responseStatus: number | null;
  responseBody: unknown;
  responseHeaders: unknown;
  createdAt: Date;
};

/** A new key, or one expired or abandoned ($5, $6), claimed; a live key is left as it is. */
const CLAIM = `
  INSERT INTO idempotency_keys (account_id, key, request_digest, created_at)
  VALUES ($1::text, $2::text, $3::text, $4::timestamptz)
  ON CONFLICT (account_id, key) DO UPDATE SET
    request_digest = EXCLUDED.request_digest, created_at = EXCLUDED.created_at,
    response_status = NULL, response_body = NULL, response_headers = NULL
  WHERE idempotency_keys.created_at <= $5::timestamptz
     OR (idempotency_keys.response_status IS NULL AND idempotency_keys.created_at <= $6::timestamptz)
  RETURNING key`;

const READ_KEY = `
  SELECT request_digest AS "requestDigest", response_status AS "responseStatus",
         response_body AS "responseBody", response_headers AS "responseHeaders", created_at AS "createdAt"
    FROM idempotency_keys WHERE account_id = $1::text AND key = $2::text`;

/** The answer kept on its claim, if the claim is still unanswered (not taken over, not swept). */
const KEEP = `
  UPDATE idempotency_keys SET response_status = $3::int, response_body = $4::jsonb, response_headers = $5::jsonb
   WHERE account_id = $1::text AND key = $2::text AND response_status IS NULL
  RETURNING key`;

function keptValues(accountId: string, key: string, response: StoredResponse): unknown[] {
  return [accountId, key, response.status, JSON.stringify(response.body ?? null), JSON.stringify(response.headers)];
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
