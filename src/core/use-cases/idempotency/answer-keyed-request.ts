import type { IdempotencyStore, KeyedAnswer, StoredResponse } from '../../ports/idempotency-store';
import type { KeptAnswers, KeptQuotaRefusal } from './kept-answers';

/** A keyed request's answer, or its refusal before it acted: its account's hourly bound is spent. */
export type KeyedOutcome = KeyedAnswer | ({ readonly outcome: 'quota-exceeded' } & KeptQuotaRefusal);

/**
 * Answers a request made with an Idempotency-Key within its account's hourly bounds
 * (docs/decisions.md, "Idempotency-Key"): admitted, it acts once and its answer is kept as
 * IdempotencyStore.answerOnce says; past a bound it does nothing and claims nothing, unless its key
 * already holds an answer, which a retry gets as it would within the bounds. Only a request that
 * claims its key counts one: a retry, a reused key or a failure gives back the one it was admitted with.
 */
export class AnswerKeyedRequest {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly keptAnswers: KeptAnswers,
  ) {}

  async execute(input: {
    readonly accountId: string;
    readonly key: string;
    readonly requestDigest: string;
    readonly produce: () => Promise<StoredResponse>;
  }): Promise<KeyedOutcome> {
    const { accountId, key, requestDigest, produce } = input;
    const refused = await this.keptAnswers.admission(accountId);
    if (refused) {
      // Read only past the bound: within it the claim finds a kept key in the same statement.
      return (
        (await this.store.earlierAnswer(accountId, key, requestDigest)) ?? { outcome: 'quota-exceeded', ...refused }
      );
    }
    let answer: KeyedAnswer;
    try {
      answer = await this.store.answerOnce(accountId, key, requestDigest, produce, (bytes) =>
        this.keptAnswers.refusal(accountId, bytes),
      );
    } catch (error) {
      // Nothing was claimed: a failure keeps no key.
      this.keptAnswers.giveBackKey(accountId);
      throw error;
    }
    if (answer.outcome !== 'answered') this.keptAnswers.giveBackKey(accountId);
    return answer;
  }
}
