import { Clock } from '../../../src/core/domain/clock';
import { Traveller } from '../../../src/core/domain/traveller';
import { MAX_KEPT_ANSWER_BYTES } from '../../../src/core/ports/idempotency-store';
import { AnswerKeyedRequest } from '../../../src/core/use-cases/idempotency/answer-keyed-request';
import { KeptAnswers, type KeptBounds } from '../../../src/core/use-cases/idempotency/kept-answers';
import { CountRequest } from '../../../src/core/use-cases/rate-limiting/count-request';
import { aTimeline } from '../builders/timeline-builder';
import { FrozenWallClock } from '../in-memory';
import { at, givenAccounts, type MakeRepositories, useRepositories } from './subject';

/** Half past an hour: a refusal waits 30 minutes, until the hour's window ends. */
const HALF_PAST = '2030-01-01T12:30:00.000Z';

/**
 * A keyed request past its account's hourly bound (AnswerKeyedRequest over IdempotencyStore and the
 * shared counters): refused before it acts, its writes and its key absent; a retry of a kept key
 * still replayed. Every service process counts in the same counters.
 */
export function keyedRequestQuotaContract(name: string, makeRepositories: MakeRepositories): void {
  describe(`${name}: keyed requests within their account's hourly bound`, () => {
    const subject = useRepositories(makeRepositories);
    const clock = new FrozenWallClock(HALF_PAST);

    beforeEach(async () => {
      const { repos } = subject.current;
      await givenAccounts(repos, 'acc_1', 'acc_2');
      for (const accountId of ['acc_1', 'acc_2']) {
        await repos.travellers.add(
          Traveller.restore({
            accountId,
            clock: Clock.restore({ reading: at('1969-07-20T20:17:40Z'), readAt: at(HALF_PAST), paused: true }),
            timelineId: 'primary',
            location: 'home',
            journeyTravelId: null,
          }),
        );
      }
    });

    /** One service process: its own claims on the shared counters. */
    const aProcess = (bounds: KeptBounds) =>
      new AnswerKeyedRequest(
        subject.current.keys,
        new KeptAnswers(new CountRequest(subject.current.counters, clock), bounds),
      );

    /** A keyed request that adds the timeline `id` (its key and its digest named after it), answered `body`. */
    const addTimeline = (process: AnswerKeyedRequest, id: string, body: unknown = { id }, accountId = 'acc_1') => {
      const acted = { ran: false };
      const outcome = process.execute({
        accountId,
        key: `key-${id}`,
        requestDigest: `digest-${id}`,
        produce: async () => {
          acted.ran = true;
          await subject.current.tx.exclusive(accountId, (inside) =>
            inside.timelines.add(aTimeline().withId(id).build()),
          );
          return { status: 201, body, headers: {} };
        },
      });
      return outcome.then((answered) => ({ ...answered, acted: acted.ran }));
    };
    const timelines = async (accountId = 'acc_1') =>
      (await subject.current.repos.timelines.listForAccount(accountId, { limit: 100, after: null }))
        .map((timeline) => timeline.id)
        .filter((id) => id !== 'primary');

    it('past its keys an hour, refuses a new key before it acts: nothing written, no key kept', async () => {
      const process = aProcess({ keysPerHour: 2 });
      expect(await addTimeline(process, 'tml_1')).toMatchObject({ outcome: 'answered', acted: true });
      expect(await addTimeline(process, 'tml_2')).toMatchObject({ outcome: 'answered', acted: true });

      const refused = await addTimeline(process, 'tml_3');

      expect(refused).toEqual({ outcome: 'quota-exceeded', quota: 'keys', retryAfterSeconds: 1800, acted: false });
      expect(await timelines()).toEqual(['tml_1', 'tml_2']);
      expect(await subject.current.keys.earlierAnswer('acc_1', 'key-tml_3', 'digest-tml_3')).toBeNull();
      // Still refused, and still nothing kept, when it is sent again within the hour.
      expect(await addTimeline(process, 'tml_3')).toMatchObject({ outcome: 'quota-exceeded', acted: false });
      expect(await subject.current.keys.earlierAnswer('acc_1', 'key-tml_3', 'digest-tml_3')).toBeNull();
      // Another account's keys are its own.
      expect(await addTimeline(process, 'tml_9', undefined, 'acc_2')).toMatchObject({ outcome: 'answered' });
    });

    it('past its bound, replays a kept key and tells a reused one, acting on nothing', async () => {
      const process = aProcess({ keysPerHour: 1 });
      const first = await addTimeline(process, 'tml_1');
      expect(first).toMatchObject({ outcome: 'answered', acted: true });

      const retry = await addTimeline(process, 'tml_1');
      const reused = await process.execute({
        accountId: 'acc_1',
        key: 'key-tml_1',
        requestDigest: 'digest-of-another-request',
        produce: () => Promise.reject(new Error('a reused key must not act')),
      });

      expect(retry).toEqual({
        outcome: 'replay',
        response: { status: 201, json: '{"id":"tml_1"}', headers: {} },
        acted: false,
      });
      expect(reused).toEqual({ outcome: 'reused' });
      expect(await timelines()).toEqual(['tml_1']);
    });

    it('counts only keys claimed: retries, a reused key and a failure spend none of the bound', async () => {
      const process = aProcess({ keysPerHour: 2 });
      expect(await addTimeline(process, 'tml_1')).toMatchObject({ outcome: 'answered', acted: true });
      // Within the bound a retry's work runs and is undone when it meets the kept key (answerOnce).
      for (let retry = 0; retry < 5; retry += 1)
        expect(await addTimeline(process, 'tml_1')).toMatchObject({ outcome: 'replay' });
      expect(
        await process.execute({
          accountId: 'acc_1',
          key: 'key-tml_1',
          requestDigest: 'digest-of-another-request',
          produce: async () => {
            await subject.current.tx.exclusive('acc_1', (inside) =>
              inside.timelines.add(aTimeline().withId('tml_other').build()),
            );
            return { status: 201, body: {}, headers: {} };
          },
        }),
      ).toEqual({ outcome: 'reused' });
      const failing = process.execute({
        accountId: 'acc_1',
        key: 'key-failing',
        requestDigest: 'digest-failing',
        produce: () => Promise.reject(new Error('the database went away')),
      });
      await expect(failing).rejects.toThrow('the database went away');

      // One key of two spent: one more new key acts, the next is refused.
      expect(await addTimeline(process, 'tml_2')).toMatchObject({ outcome: 'answered', acted: true });
      expect(await addTimeline(process, 'tml_3')).toMatchObject({ outcome: 'quota-exceeded', acted: false });
      expect(await timelines()).toEqual(['tml_1', 'tml_2']);
    });

    it('past its kept bytes an hour, refuses a new key before it acts, and still replays the kept ones', async () => {
      const process = aProcess({ mibPerHour: 1, keysPerHour: 100 });
      // Answers just under 64 KiB as JSON text: 16 of them leave less than one more in the MiB.
      const long = (id: string) => ({ id, padding: 'x'.repeat(MAX_KEPT_ANSWER_BYTES - 100) });
      for (let n = 1; n <= 16; n += 1)
        expect(await addTimeline(process, `tml_${n}`, long(`tml_${n}`))).toMatchObject({ outcome: 'answered' });

      const refused = await addTimeline(process, 'tml_17', long('tml_17'));

      expect(refused).toEqual({
        outcome: 'quota-exceeded',
        quota: 'kept_bytes',
        retryAfterSeconds: 1800,
        acted: false,
      });
      expect(await timelines()).toHaveLength(16);
      expect(await subject.current.keys.earlierAnswer('acc_1', 'key-tml_17', 'digest-tml_17')).toBeNull();
      expect(await addTimeline(process, 'tml_1', long('tml_1'))).toMatchObject({ outcome: 'replay', acted: false });
    });

    it('lets no more keyed requests act than the bound, sent at once through two processes', async () => {
      const [one, other] = [aProcess({ keysPerHour: 3 }), aProcess({ keysPerHour: 3 })];

      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, n) => addTimeline(n % 2 === 0 ? one : other, `tml_${n}`)),
      );

      const answered = outcomes.filter((outcome) => outcome.outcome === 'answered');
      expect(answered).toHaveLength(3);
      expect(outcomes.filter((outcome) => outcome.outcome === 'quota-exceeded' && !outcome.acted)).toHaveLength(5);
      expect(await timelines()).toHaveLength(3);
    });
  });
}
