import {
  IdempotencyStore,
  type EarlierAnswer,
  notKeptReason,
  type KeepingRule,
  type KeptResponse,
  type KeyedAnswer,
  type NotKeptReason,
  type StoredResponse,
} from '../../../core/ports/idempotency-store';
import type { WallClock } from '../../../core/ports/wall-clock';
import type { PrismaClient } from '../../database/driver/generated/client';
import type { SqlRunner } from '../../database/driver/sql-runner';
import { READ_KEY } from './statements/idempotency-keys';
import type { KeyedRequests } from './unit-of-work/keyed-requests';
import type { Claim } from './unit-of-work/gated-statement';

const HOUR_MS = 3_600_000;
/** Stripe keeps keys 24 hours; a retry after that acts again. */
export const IDEMPOTENCY_RETENTION_MS = 24 * HOUR_MS;
/** Expired keys of every account are cleared at most this often per process. */
const SWEEP_INTERVAL_MS = 60_000;
/** A key found kept, then gone or unanswered when read, is claimed again; this often at most. */
const CLAIM_ATTEMPTS = 3;
/**
 * The kept header of an answer not kept, in place of its own, naming why: a name no operation
 * sends, so a retry's read tells a key claimed without its answer from one kept whole. `true` is
 * what a process of an earlier release wrote, which kept all but the answers too long.
 */
const NOT_KEPT_HEADER = 'x-tns-answer-not-kept';

export class PostgresIdempotencyStore extends IdempotencyStore {
  private lastSweep = 0;

  constructor(
    private readonly prisma: PrismaClient,
    /** For reading a key found kept. */
    private readonly sql: SqlRunner,
    private readonly keyed: KeyedRequests,
    private readonly clock: WallClock,
  ) {
    super();
  }

  /**
   * One statement for a request that acts: its writes with the key claimed and the answer kept
   * (unit-of-work/keyed-requests.ts). Only a key found kept is read, to answer the retry.
   */
  async answerOnce(
    accountId: string,
    key: string,
    requestDigest: string,
    produce: () => Promise<StoredResponse>,
    keeping: KeepingRule,
  ): Promise<KeyedAnswer> {
    await this.sweep(this.clock.now());
    // Judged once: a request produced again (another writer came first) is not charged again. Its
    // new answer is kept as the first was, unless it is too long to keep at all.
    let judged: Promise<NotKeptReason | null> | undefined;
    const producedAndJudged = async () => {
      // Written as JSON here, once: the body's objects are not held while the key is claimed.
      const response = written(await produce());
      const bytes = Buffer.byteLength(response.json);
      // An answer too long to keep is not charged, and leaves a shorter one of a later run its chance.
      const notKept = await notKeptReason(bytes, (judging) => (judged ??= keeping(judging)));
      return { response, notKept };
    };
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const claimed = await this.keyed.answer(producedAndJudged, (answer) =>
        keyClaim({ accountId, key, requestDigest }, this.clock.now(), kept(answer)),
      );
      if (claimed) return { outcome: 'answered', response: claimed.kept.response };
      // Gone since, or claimed without its answer since for this request: the next claim takes it.
      const earlier = await this.earlierAnswer(accountId, key, requestDigest);
      if (earlier) return earlier;
    }
    // Only processes of an earlier release, releasing or claiming the key under this one each time.
    throw new Error(`the Idempotency-Key of account ${accountId} changed hands ${CLAIM_ATTEMPTS} times`);
  }

  async earlierAnswer(accountId: string, key: string, requestDigest: string): Promise<EarlierAnswer | null> {
    const [row] = await READ_KEY.run(this.sql, { accountId, key });
    // An expired key counts as never used, as a claim would take it.
    if (!row || row.createdAt.getTime() <= this.clock.now().getTime() - IDEMPOTENCY_RETENTION_MS) return null;
    if (row.requestDigest !== requestDigest) return { outcome: 'reused' };
    // Claimed by an earlier release without its answer: nothing kept yet.
    if (row.responseStatus === null) return null;
    const headers = stringRecord(row.responseHeaders);
    const notKept = headers[NOT_KEPT_HEADER];
    if (notKept !== undefined) {
      const reason = notKept === 'quota_reached' ? notKept : 'too_long';
      return { outcome: 'not-kept', status: row.responseStatus, reason };
    }
    return { outcome: 'replay', response: { status: row.responseStatus, json: row.responseBody ?? 'null', headers } };
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

/** An answer with its body written as JSON. */
function written(response: StoredResponse): KeptResponse {
  return { status: response.status, json: JSON.stringify(response.body ?? null), headers: response.headers };
}

/** What a key keeps of an answer: the whole of it, or its status alone and why, when it is not kept. */
function kept(answer: { response: KeptResponse; notKept: NotKeptReason | null }): {
  status: number;
  body: string;
  headers: string;
} {
  const { response, notKept } = answer;
  if (notKept) {
    return { status: response.status, body: 'null', headers: JSON.stringify({ [NOT_KEPT_HEADER]: notKept }) };
  }
  return { status: response.status, body: response.json, headers: JSON.stringify(response.headers) };
}

/** A request's claim on its key at `now`, with its answer (body and headers as JSON text). */
export function keyClaim(
  request: Pick<Claim, 'accountId' | 'key' | 'requestDigest'>,
  now: Date,
  answer: { readonly status: number; readonly body: string; readonly headers: string },
): Claim {
  return {
    ...request,
    claimedAt: now,
    expiredBefore: new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS),
    responseStatus: answer.status,
    responseBody: answer.body,
    responseHeaders: answer.headers,
  };
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}
