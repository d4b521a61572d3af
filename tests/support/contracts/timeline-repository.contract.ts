import { Timeline } from '../../../src/core/domain/timeline';
import type { TimelineCursor } from '../../../src/core/ports/repositories';
import { aTimeline } from '../builders/timeline-builder';
import { at, givenAccounts, idsOf, type MakeRepositories, useRepositories } from './subject';

/** TimelineRepository: timelines of one account, paged by creation then id. */
export function timelineRepositoryContract(name: string, makeRepositories: MakeRepositories): void {
  describe(`${name}: TimelineRepository contract`, () => {
    const subject = useRepositories(makeRepositories);

    beforeEach(async () => {
      await givenAccounts(subject.current.repos, 'acc_1', 'acc_2');
    });

    it('finds an added timeline, every field intact, nulls included', async () => {
      const { timelines } = subject.current.repos;
      const created = aTimeline()
        .withId('tml_1')
        .createdAt('2030-01-01T12:00:00.123Z')
        .leadingTo('1969-07-20T20:17:40.456Z')
        .withWindowMinutes(90)
        .build();
      const primary = Timeline.primary('acc_1', at('2030-01-01T11:00:00.789Z'));
      await timelines.add(created);
      await timelines.add(primary);

      expect(await timelines.findForAccount('acc_1', 'tml_1')).toEqual(created);
      expect(await timelines.findForAccount('acc_1', 'primary')).toEqual(primary);
      expect((await timelines.findForAccount('acc_1', 'primary'))?.destinationTime).toBeNull();
    });

    it("saves a timeline's changes", async () => {
      const { timelines } = subject.current.repos;
      await timelines.add(aTimeline().withId('tml_1').build());
      const completed = aTimeline()
        .withId('tml_1')
        .withStatus('completed')
        .leadingTo('1815-06-18T11:30:00.001Z')
        .withWindowMinutes(5)
        .build();

      await timelines.save(completed);

      expect(await timelines.findForAccount('acc_1', 'tml_1')).toEqual(completed);
    });

    it("does not find another account's timeline, and saves only the account's own of one id", async () => {
      const { timelines } = subject.current.repos;
      await timelines.add(aTimeline().withId('tml_1').build());
      const theirs = aTimeline().ofAccount('acc_2').withId('tml_1').build();
      await timelines.add(theirs);
      await timelines.add(aTimeline().withId('tml_mine').build());

      await timelines.save(aTimeline().withId('tml_1').withStatus('active').build());

      expect(await timelines.findForAccount('acc_2', 'tml_mine')).toBeNull();
      expect(await timelines.findForAccount('acc_2', 'tml_1')).toEqual(theirs);
      expect((await timelines.findForAccount('acc_1', 'tml_1'))?.status).toBe('active');
    });

    it("lists by creation then id, after the cursor, up to the limit, only the account's own", async () => {
      const { timelines } = subject.current.repos;
      await timelines.add(aTimeline().withId('tml_c').createdAt('2030-01-01T12:00:00.500Z').build());
      await timelines.add(aTimeline().withId('tml_b').createdAt('2030-01-01T12:00:00.500Z').build());
      await timelines.add(aTimeline().withId('tml_a').createdAt('2030-01-01T12:00:00.501Z').build());
      await timelines.add(aTimeline().withId('tml_0').createdAt('2030-01-01T12:00:00.499Z').build());
      await timelines.add(aTimeline().ofAccount('acc_2').withId('tml_x').createdAt('2030-01-01T12:00:00.500Z').build());
      const ids = async (page: { limit: number; after: TimelineCursor | null }) =>
        idsOf(await timelines.listForAccount('acc_1', page));

      expect(await ids({ limit: 10, after: null })).toEqual(['tml_0', 'tml_b', 'tml_c', 'tml_a']);
      expect(await ids({ limit: 2, after: null })).toEqual(['tml_0', 'tml_b']);
      expect(await ids({ limit: 2, after: { createdAt: at('2030-01-01T12:00:00.500Z'), id: 'tml_b' } })).toEqual([
        'tml_c',
        'tml_a',
      ]);
      expect(await ids({ limit: 10, after: { createdAt: at('2030-01-01T12:00:00.500Z'), id: 'tml_c' } })).toEqual([
        'tml_a',
      ]);
      expect(await ids({ limit: 10, after: { createdAt: at('2030-01-01T12:00:00.501Z'), id: 'tml_a' } })).toEqual([]);
      expect(idsOf(await timelines.listForAccount('acc_2', { limit: 10, after: null }))).toEqual(['tml_x']);
    });

    it('pages through every timeline exactly once', async () => {
      const { timelines } = subject.current.repos;
      const all = ['tml_5', 'tml_3', 'tml_1', 'tml_4', 'tml_2'];
      for (const [n, id] of all.entries()) {
        await timelines.add(
          aTimeline()
            .withId(id)
            .createdAt(new Date(Date.parse('2030-01-01T12:00:00Z') + (n % 2)))
            .build(),
        );
      }

      const seen: string[] = [];
      let after: TimelineCursor | null = null;
      for (;;) {
        const page: Timeline[] = await timelines.listForAccount('acc_1', { limit: 2, after });
        if (page.length === 0) break;
        seen.push(...idsOf(page));
        const last = page[page.length - 1];
        after = { createdAt: last.createdAt, id: last.id };
      }

      expect(seen).toEqual(['tml_1', 'tml_2', 'tml_5', 'tml_3', 'tml_4']);
    });
  });
}
