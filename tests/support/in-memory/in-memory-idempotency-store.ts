import {
  IdempotencyStore,
  notKeptReason,
  type EarlierAnswer,
  type KeepingRule,
  type KeptResponse,
  type KeyedAnswer,
  type NotKeptReason,
  type StoredResponse,
} from '../../../src/core/ports/idempotency-store';
import type { InMemoryTransactionBoundary } from './in-memory-transaction-boundary';

/** Runs lost in a row to other writers before the request is reported (PostgreSQL's MAX_RUNS). */
const MAX_RUNS = 100;

interface KeptKey {
  readonly requestDigest: string;
  readonly status: number;
  /** The answer kept, or why it was not. */
  readonly kept: KeptResponse | NotKeptReason;
}

/**
 * Idempotency keys in memory, for the unit tests and the contract both adapters run: the answer is
 * produced as a keyed request of the in-memory boundary, so its unit-of-work rules hold as they do
 * on PostgreSQL, and its writes are kept with the key or dropped with a retry's. Keys do not expire.
 */
export class InMemoryIdempotencyStore extends IdempotencyStore {
  private readonly keys = new Map<string, KeptKey>();

  constructor(private readonly boundary: InMemoryTransactionBoundary) {
    super();
  }

  async answerOnce(
    accountId: string,
    key: string,
    requestDigest: string,
    produce: () => Promise<StoredResponse>,
    keeping: KeepingRule,
  ): Promise<KeyedAnswer> {
    // As on PostgreSQL: when another writer of the account came first, the request is produced again.
    for (let attempt = 1; attempt <= MAX_RUNS; attempt += 1) {
      const run = await this.boundary.keyed(produce);
      const earlier = await this.earlierAnswer(accountId, key, requestDigest);
      if (earlier) {
        run.discard();
        return earlier;
      }
      const { status, body, headers } = run.answer;
      const response: KeptResponse = { status, json: JSON.stringify(body ?? null), headers };
      let notKept: NotKeptReason | null;
      try {
        notKept = await notKeptReason(Buffer.byteLength(response.json), keeping);
      } catch (error) {
        run.discard();
        throw error;
      }
      if (run.keep() === 'conflict') continue;
      this.keys.set(`${accountId}\u0000${key}`, { requestDigest, status, kept: notKept ?? response });
      return { outcome: 'answered', response };
    }
    throw new Error(`a keyed request lost to other writers of its account ${MAX_RUNS} times`);
  }

  async earlierAnswer(accountId: string, key: string, requestDigest: string): Promise<EarlierAnswer | null> {
    const found = this.keys.get(`${accountId}\u0000${key}`);
    if (!found) return null;
    if (found.requestDigest !== requestDigest) return { outcome: 'reused' };
    if (typeof found.kept === 'string') return { outcome: 'not-kept', status: found.status, reason: found.kept };
    return { outcome: 'replay', response: found.kept };
  }
}
