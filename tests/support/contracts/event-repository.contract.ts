import { TimeRange } from '../../../src/core/domain/time-range';
import type { EventManipulation, ListedEvent, TimelineEvent } from '../../../src/core/domain/timeline-event';
import type { EventCursor, EventQuery } from '../../../src/core/ports/repositories';
import { Traveller } from '../../../src/core/domain/traveller';
import { anEvent } from '../builders/event-builder';
import { aTimeline } from '../builders/timeline-builder';
import { aTravellerAwayOn } from '../builders/traveller-builder';
import { at, givenAccounts, idsOf, type MakeRepositories, useRepositories } from './subject';

function aManipulation(overrides: Partial<EventManipulation> = {}): EventManipulation {
  return {
    accountId: 'acc_1',
    id: 'man_1',
    eventId: 'evt_1',
    action: 'Delay the find',
    fromTime: at('1969-07-20T21:00:00.001Z'),
    toTime: at('1969-07-20T22:00:00.002Z'),
    appliedAt: at('2030-01-01T12:10:00.003Z'),
    revision: 1,
    ...overrides,
  };
}

/** An untouched event at `time` (its original time too). */
function anEventAt(time: string, overrides: Partial<TimelineEvent>): TimelineEvent {
  return anEvent({ time: at(time), originalTime: at(time), ...overrides });
}

/** What a listing shows of an event (ListedEvent): all but the record depending on it and when it was recorded. */
function listedPart({ subjectId: _subject, recordedAt: _recorded, ...listed }: TimelineEvent): ListedEvent {
  return listed;
}

/** Ranges come from the API, so they are whole seconds; times stored are to the millisecond. */
const range = (text: string) => TimeRange.parse(text);

/** EventRepository: events of one account's timeline, searched by place, name and manipulation. */
export function eventRepositoryContract(name: string, makeRepositories: MakeRepositories): void {
  describe(`${name}: EventRepository contract`, () => {
    const subject = useRepositories(makeRepositories);
    const events = () => subject.current.repos.events;

    async function given(...stored: TimelineEvent[]): Promise<void> {
      for (const event of stored) await events().add(event);
    }

    beforeEach(async () => {
      await givenAccounts(subject.current.repos, 'acc_1', 'acc_2');
    });

    it('finds an added event, every field intact, to the millisecond', async () => {
      const retrieved = anEvent({
        id: 'evt_1',
        time: at('1969-07-20T21:00:00.123Z'),
        originalTime: at('1969-07-20T21:00:00.123Z'),
        recordedAt: at('2030-01-01T12:05:00.456Z'),
      });
      const manipulation = anEvent({
        id: 'evt_2',
        kind: 'manipulation',
        subjectId: null,
        description: 'Event moved',
        location: '',
      });
      const arrival = anEvent({ id: 'evt_3', kind: 'arrival', subjectId: 'trv_1' });
      const anchor = anEvent({ id: 'evt_4', kind: 'anchor_set', subjectId: 'anc_1' });
      await given(retrieved, manipulation, arrival, anchor);

      for (const event of [retrieved, manipulation, arrival, anchor]) {
        expect(await events().findForAccount('acc_1', event.id)).toEqual(event);
      }
    });

    it("saves an event's new time and revision, keeping its original time", async () => {
      await given(anEvent({ id: 'evt_1' }));
      const moved = anEvent({ id: 'evt_1', time: at('1969-07-20T22:30:00.007Z'), revision: 1 });

      await events().save(moved);

      expect(await events().findForAccount('acc_1', 'evt_1')).toEqual(moved);
      expect((await events().findForAccount('acc_1', 'evt_1'))?.originalTime).toEqual(at('1969-07-20T21:00:00Z'));
    });

    it("does not find another account's event, and saves only the account's own of one id", async () => {
      await given(anEvent({ id: 'evt_1' }), anEvent({ id: 'evt_2' }), anEvent({ accountId: 'acc_2', id: 'evt_1' }));

      await events().save(anEvent({ id: 'evt_1', time: at('1969-07-21T00:00:00Z'), revision: 1 }));

      expect(await events().findForAccount('acc_2', 'evt_2')).toBeNull();
      expect(await events().findForAccount('acc_2', 'evt_1')).toEqual(anEvent({ accountId: 'acc_2', id: 'evt_1' }));
      expect(await events().findForAccount('acc_1', 'evt_404')).toBeNull();
    });

    describe('listAt', () => {
      const day = range('1815-06-18T00:00:00.000Z/1815-06-18T18:00:00.000Z');
      const query: EventQuery = { timelineId: 'tml_1', place: 'Waterloo', range: day, after: null, limit: 10 };
      const listAt = async (changes: Partial<EventQuery> = {}, accountId = 'acc_1') => {
        const page = await events().listAt(accountId, { ...query, ...changes });
        if (!page)
          throw new Error(`listAt found no timeline ${String(changes.timelineId ?? query.timelineId)} of ${accountId}`);
        return idsOf(page.events);
      };

      beforeEach(async () => {
        const { timelines } = subject.current.repos;
        for (const [accountId, id] of [
          ['acc_1', 'tml_1'],
          ['acc_1', 'tml_2'],
          ['acc_1', 'tml_3'],
          ['acc_2', 'tml_1'],
          ['acc_2', 'tml_2'],
        ]) {
          await timelines.add(aTimeline().ofAccount(accountId).withId(id).build());
        }
        await given(
          anEventAt('1815-06-18T11:30:00.000Z', { id: 'evt_c', location: 'Waterloo', description: 'Cannon fire' }),
          anEventAt('1815-06-18T11:30:00.000Z', { id: 'evt_b', location: '  waterloo ', description: 'Rain' }),
          anEventAt('1815-06-18T12:00:00.000Z', { id: 'evt_d', location: 'Brussels', description: 'WATERLOO' }),
          anEventAt('1815-06-18T18:00:00.000Z', { id: 'evt_end', location: 'WaterLoo', description: 'Charge' }),
          anEventAt('1815-06-18T00:00:00.000Z', { id: 'evt_start', location: 'Waterloo', description: 'Dawn' }),
          anEventAt('1815-06-17T23:59:59.999Z', { id: 'evt_early', location: 'Waterloo', description: 'Too early' }),
          anEventAt('1815-06-18T18:00:00.001Z', { id: 'evt_late', location: 'Waterloo', description: 'Too late' }),
          anEventAt('1815-06-18T12:00:00.000Z', {
            id: 'evt_near',
            location: 'Waterloo station',
            description: 'Waterloo sunset',
          }),
          anEventAt('1815-06-18T12:00:00.000Z', {
            id: 'evt_other_timeline',
            timelineId: 'tml_2',
            location: 'Waterloo',
          }),
          anEventAt('1815-06-18T12:00:00.000Z', { id: 'evt_other_account', accountId: 'acc_2', location: 'Waterloo' }),
        );
      });

      it('lists events at the place or so named (any case, spacing), range inclusive, by time then id', async () => {
        expect(await listAt()).toEqual(['evt_start', 'evt_b', 'evt_c', 'evt_d', 'evt_end']);
        expect(await listAt({ place: '  WATERLOO  ' })).toEqual(['evt_start', 'evt_b', 'evt_c', 'evt_d', 'evt_end']);
      });

      it('shows each event as an answer does, its original time whether a manipulation moved it or not', async () => {
        const moved = {
          ...anEventAt('1815-06-18T09:00:00.125Z', { id: 'evt_moved', location: 'Waterloo', kind: 'arrival' }),
          time: at('1815-06-18T13:00:00.250Z'),
          revision: 2,
        };
        const movedBack = { ...anEventAt('1815-06-18T14:00:00.000Z', { id: 'evt_back', location: 'Waterloo' }) };
        await given(moved, { ...movedBack, revision: 2 });

        const page = await events().listAt('acc_1', query);

        const shown = (id: string) => page?.events.find((event) => event.id === id);
        expect(shown('evt_moved')).toMatchObject(listedPart(moved));
        expect(shown('evt_back')).toMatchObject(listedPart({ ...movedBack, revision: 2 }));
        expect(shown('evt_c')).toMatchObject({
          time: at('1815-06-18T11:30:00.000Z'),
          originalTime: at('1815-06-18T11:30:00.000Z'),
          description: 'Cannon fire',
          revision: 0,
        });
      });

      it('lists an event both at the place and so named once, and pages across the two kinds of match', async () => {
        await given(
          anEventAt('1815-06-18T12:00:00.000Z', { id: 'evt_both', location: 'Waterloo', description: 'Waterloo' }),
        );
        expect(await listAt()).toEqual(['evt_start', 'evt_b', 'evt_c', 'evt_both', 'evt_d', 'evt_end']);
        expect(await listAt({ limit: 4 })).toEqual(['evt_start', 'evt_b', 'evt_c', 'evt_both']);
        expect(await listAt({ limit: 2, after: { time: at('1815-06-18T12:00:00.000Z'), id: 'evt_both' } })).toEqual([
          'evt_d',
          'evt_end',
        ]);
      });

      it('folds white space inside the place too', async () => {
        await given(
          anEventAt('1815-06-18T13:00:00.000Z', { id: 'evt_mont', location: 'Mont  Saint\tJean', description: 'Farm' }),
        );

        expect(await listAt({ place: ' mont saint  jean ' })).toEqual(['evt_mont']);
        expect(await listAt({ place: 'MontSaintJean' })).toEqual([]);
      });

      it('matches the place exactly, never as a pattern', async () => {
        expect(await listAt({ place: 'Waterloo%' })).toEqual([]);
        expect(await listAt({ place: 'W_terloo' })).toEqual([]);
        expect(await listAt({ place: '%' })).toEqual([]);
      });

      it('continues after the cursor, up to the limit', async () => {
        expect(await listAt({ limit: 2 })).toEqual(['evt_start', 'evt_b']);
        expect(await listAt({ limit: 2, after: { time: at('1815-06-18T11:30:00.000Z'), id: 'evt_b' } })).toEqual([
          'evt_c',
          'evt_d',
        ]);
        expect(await listAt({ after: { time: at('1815-06-18T11:30:00.000Z'), id: 'evt_c' } })).toEqual([
          'evt_d',
          'evt_end',
        ]);
        expect(await listAt({ after: { time: at('1815-06-18T18:00:00.000Z'), id: 'evt_end' } })).toEqual([]);
      });

      it('lists by current time, not original time', async () => {
        await events().save({
          ...anEventAt('1815-06-18T11:30:00.000Z', { id: 'evt_c', location: 'Waterloo', description: 'Cannon fire' }),
          time: at('1815-06-19T09:00:00.000Z'),
          revision: 1,
        });

        expect(await listAt()).toEqual(['evt_start', 'evt_b', 'evt_d', 'evt_end']);
        expect(await listAt({ range: range('1815-06-19T09:00:00.000Z/1815-06-19T09:00:00.000Z') })).toEqual(['evt_c']);
      });

      it("lists only the account's own events", async () => {
        expect(await listAt({}, 'acc_2')).toEqual(['evt_other_account']);
        expect(await listAt({ timelineId: 'tml_2' }, 'acc_2')).toEqual([]);
      });

      it("names the timeline it read: the one given or the traveller's, even for an empty page", async () => {
        const { repos } = subject.current;
        await repos.travellers.add(aTravellerAwayOn('tml_2'));
        await repos.travellers.add(Traveller.newcomer('acc_2', at('2030-01-01T12:00:00Z')));

        expect(await events().listAt('acc_1', { ...query, timelineId: null })).toMatchObject({
          timelineId: 'tml_2',
          events: [{ id: 'evt_other_timeline' }],
        });
        expect(await events().listAt('acc_1', query)).toMatchObject({ timelineId: 'tml_1' });
        // A full page, cut from more matches than it holds (of both kinds), still names its timeline.
        const full = await events().listAt('acc_1', { ...query, limit: 1 });
        expect({ timelineId: full?.timelineId, events: full && idsOf(full.events) }).toEqual({
          timelineId: 'tml_1',
          events: ['evt_start'],
        });
        expect(await events().listAt('acc_1', { ...query, timelineId: null, place: 'Nowhere' })).toEqual({
          timelineId: 'tml_2',
          events: [],
        });
        expect(await events().listAt('acc_2', { ...query, timelineId: null })).toEqual({
          timelineId: 'primary',
          events: [],
        });
      });

      it('pages on where the traveller stands as on a timeline named', async () => {
        await subject.current.repos.travellers.add(aTravellerAwayOn('tml_1'));
        const after = { time: at('1815-06-18T11:30:00.000Z'), id: 'evt_b' };

        const traveller = await events().listAt('acc_1', { ...query, timelineId: null, limit: 2, after });
        const named = await events().listAt('acc_1', { ...query, limit: 2, after });

        expect(traveller?.events.map((event) => event.id)).toEqual(['evt_c', 'evt_d']);
        expect(traveller).toEqual(named);
      });

      it('answers null for a timeline the account does not have, its own or none at all', async () => {
        expect(await events().listAt('acc_2', { ...query, timelineId: 'tml_3' })).toBeNull();
        expect(await events().listAt('acc_1', { ...query, timelineId: 'tml_404' })).toBeNull();
        expect(await events().listAt('acc_1', { ...query, timelineId: 'tml_3' })).toEqual({
          timelineId: 'tml_3',
          events: [],
        });
      });
    });

    describe('listInRange', () => {
      const day = range('1815-06-18T00:00:00.000Z/1815-06-18T18:00:00.000Z');
      const moved = (time: string, originalTime: string, overrides: Partial<TimelineEvent>) => ({
        ...anEventAt(originalTime, overrides),
        time: at(time),
        revision: 1,
      });
      const listInRange = async (
        page: { limit?: number; after?: EventCursor | null } = {},
        accountId = 'acc_1',
        timelineId = 'tml_1',
      ) =>
        idsOf(
          await events().listInRange(accountId, timelineId, {
            range: day,
            after: page.after ?? null,
            limit: page.limit ?? 100,
          }),
        );

      beforeEach(async () => {
        await given(
          anEventAt('1815-06-18T11:30:00.000Z', { id: 'evt_c', location: 'Waterloo' }),
          anEventAt('1815-06-18T11:30:00.000Z', { id: 'evt_b', location: 'Brussels' }),
          anEventAt('1815-06-18T00:00:00.000Z', { id: 'evt_start', location: 'Ligny' }),
          anEventAt('1815-06-18T18:00:00.000Z', { id: 'evt_end', location: 'Wavre' }),
          anEventAt('1815-06-17T23:59:59.999Z', { id: 'evt_early' }),
          anEventAt('1815-06-18T18:00:00.001Z', { id: 'evt_late' }),
          moved('1815-06-19T09:00:00.000Z', '1815-06-18T12:00:00.000Z', { id: 'evt_moved_after' }),
          moved('1815-06-17T09:00:00.000Z', '1815-06-18T12:00:00.000Z', { id: 'evt_moved_before' }),
          moved('1815-06-18T13:00:00.000Z', '1815-06-16T12:00:00.000Z', { id: 'evt_moved_in' }),
          moved('1815-06-18T14:00:00.000Z', '1815-06-18T14:00:00.000Z', { id: 'evt_moved_back' }),
          moved('1815-06-20T09:00:00.000Z', '1815-06-16T12:00:00.000Z', { id: 'evt_moved_elsewhere' }),
          anEventAt('1815-06-18T12:00:00.000Z', { id: 'evt_other_timeline', timelineId: 'tml_2' }),
          anEventAt('1815-06-18T12:00:00.000Z', { id: 'evt_other_account', accountId: 'acc_2' }),
        );
      });

      const everyOne = [
        'evt_moved_before',
        'evt_start',
        'evt_b',
        'evt_c',
        'evt_moved_in',
        'evt_moved_back',
        'evt_end',
        'evt_moved_after',
      ];

      it('lists each event anywhere once whose current or original time is in the range, by time then id', async () => {
        expect(await listInRange()).toEqual(everyOne);
      });

      it('shows each event as an answer does, its original time whether moved or not', async () => {
        const shown = await events().listInRange('acc_1', 'tml_1', { range: day, after: null, limit: 100 });

        const of = (id: string) => shown.find((event) => event.id === id);
        expect(of('evt_moved_after')).toMatchObject(
          listedPart(moved('1815-06-19T09:00:00.000Z', '1815-06-18T12:00:00.000Z', { id: 'evt_moved_after' })),
        );
        expect(of('evt_moved_back')).toMatchObject(
          listedPart(moved('1815-06-18T14:00:00.000Z', '1815-06-18T14:00:00.000Z', { id: 'evt_moved_back' })),
        );
        expect(of('evt_c')).toMatchObject(
          listedPart(anEventAt('1815-06-18T11:30:00.000Z', { id: 'evt_c', location: 'Waterloo' })),
        );
      });

      it('pages through them from cursors before, within and after the range', async () => {
        const pages: string[][] = [];
        let after: EventCursor | null = null;
        do {
          const page = await events().listInRange('acc_1', 'tml_1', { range: day, after, limit: 3 });
          pages.push(idsOf(page));
          const last = page[page.length - 1];
          after = page.length === 3 && last ? { time: last.time, id: last.id } : null;
        } while (after);
        expect(pages).toEqual([everyOne.slice(0, 3), everyOne.slice(3, 6), everyOne.slice(6)]);
        expect(
          await listInRange({ after: { time: at('1815-06-17T09:00:00.000Z'), id: 'evt_moved_before' }, limit: 2 }),
        ).toEqual(['evt_start', 'evt_b']);
        expect(await listInRange({ after: { time: at('1815-06-18T18:00:00.000Z'), id: 'evt_end' } })).toEqual([
          'evt_moved_after',
        ]);
        expect(await listInRange({ after: { time: at('1815-06-19T09:00:00.000Z'), id: 'evt_moved_after' } })).toEqual(
          [],
        );
      });

      it("lists only the timeline's and the account's own", async () => {
        expect(await listInRange({}, 'acc_1', 'tml_2')).toEqual(['evt_other_timeline']);
        expect(await listInRange({}, 'acc_2')).toEqual(['evt_other_account']);
      });
    });

    describe('tallyNamed', () => {
      beforeEach(async () => {
        await given(
          anEventAt('1815-06-18T11:30:00.000Z', { id: 'evt_b', description: 'Rain' }),
          anEventAt('1815-06-18T11:30:00.000Z', { id: 'evt_a', description: '  RAIN  ' }),
          anEventAt('1815-06-18T18:00:00.000Z', { id: 'evt_charge', description: 'The  charge' }),
          anEventAt('1815-06-18T12:00:00.000Z', { id: 'evt_place', description: 'Cannon', location: 'Rain' }),
          {
            ...anEventAt('1815-06-18T08:00:00.000Z', { id: 'evt_moved', description: 'Rain' }),
            time: at('1815-06-19T12:00:00.000Z'),
            revision: 1,
          },
          anEventAt('1815-06-18T11:30:00.000Z', { id: 'evt_other_timeline', timelineId: 'tml_2', description: 'Rain' }),
          anEventAt('1815-06-18T11:30:00.000Z', { id: 'evt_other_account', accountId: 'acc_2', description: 'Rain' }),
        );
      });

      const EVERY = { listed: 10, counted: 10 };
      const tally = (
        proposals: ReadonlyArray<{ name: string; times?: readonly string[] }>,
        bounds = EVERY,
        accountId = 'acc_1',
        timelineId = 'tml_1',
      ) =>
        events().tallyNamed(
          accountId,
          timelineId,
          proposals.map(({ name, times = [] }) => ({ name, times: times.map(at) })),
          bounds,
        );
      const idsPerName = async (...args: Parameters<typeof tally>) =>
        (await tally(...args)).map((named) => ({ name: named.name, ids: idsOf(named.events.first) }));

      it('answers each name, in order, with its events ignoring case and white space, by time then id', async () => {
        expect(await idsPerName([{ name: ' the CHARGE ' }, { name: 'rain' }, { name: 'Ra%' }])).toEqual([
          { name: ' the CHARGE ', ids: ['evt_charge'] },
          { name: 'rain', ids: ['evt_a', 'evt_b', 'evt_moved'] },
          { name: 'Ra%', ids: [] },
        ]);
        expect(await tally([])).toEqual([]);
      });

      it('lists the first and counts up to the bound, saying when it stopped', async () => {
        const [rain] = await tally([{ name: 'Rain' }], { listed: 1, counted: 2 });
        expect(rain.events).toMatchObject({ count: 2, capped: true });
        expect(idsOf(rain.events.first)).toEqual(['evt_a']);
        const [exact] = await tally([{ name: 'Rain' }], { listed: 1, counted: 3 });
        expect(exact.events).toMatchObject({ count: 3, capped: false });
      });

      it('says which proposed times an event of that name happens at now, past the count bound too', async () => {
        const times = ['1815-06-19T12:00:00.000Z', '1815-06-18T08:00:00.000Z', '1815-06-18T11:30:00.000Z'];
        const [rain, charge] = await tally(
          [
            { name: 'Rain', times },
            { name: 'The charge', times: ['1815-06-18T11:30:00.000Z'] },
          ],
          { listed: 1, counted: 1 },
        );
        // Its original time is not when the moved event happens.
        expect(rain.recordedAt).toEqual([at(times[0]), at(times[2])]);
        expect(charge.recordedAt).toEqual([]);
      });

      it("reads only the timeline's and the account's own", async () => {
        expect(await idsPerName([{ name: 'Rain' }], EVERY, 'acc_1', 'tml_2')).toEqual([
          { name: 'Rain', ids: ['evt_other_timeline'] },
        ]);
        expect(await idsPerName([{ name: 'Rain' }], EVERY, 'acc_2')).toEqual([
          { name: 'Rain', ids: ['evt_other_account'] },
        ]);
        const [other] = await tally([{ name: 'Rain', times: ['1815-06-18T11:30:00.000Z'] }], EVERY, 'acc_3');
        expect(other).toEqual({ name: 'Rain', events: { first: [], count: 0, capped: false }, recordedAt: [] });
      });
    });

    describe('tallies of displaced and manipulated events', () => {
      const moved = (id: string, from: string, to: string, overrides: Partial<TimelineEvent> = {}) => ({
        ...anEventAt(from, { id, subjectId: `itm_${id}`, ...overrides }),
        time: at(to),
        revision: 1,
      });
      beforeEach(async () => {
        await given(
          anEventAt('1815-06-18T11:30:00.000Z', { id: 'evt_untouched' }),
          moved('evt_moved', '1815-06-18T11:30:00.000Z', '1815-06-19T12:00:00.000Z'),
          moved('evt_early', '1815-06-17T09:00:00.000Z', '1815-06-18T18:00:00.000Z'),
          // Moved away and back: its times agree again, yet it was manipulated.
          { ...anEventAt('1815-06-18T18:00:00.000Z', { id: 'evt_back' }), revision: 2 },
          // A manipulation record has no dependent: moved, but nothing depends on when.
          moved('evt_record', '1815-06-18T12:00:00.000Z', '1815-06-18T13:00:00.000Z', {
            kind: 'manipulation',
            subjectId: null,
          }),
          moved('evt_other_timeline', '1815-06-18T11:30:00.000Z', '1815-06-19T12:00:00.000Z', { timelineId: 'tml_2' }),
          moved('evt_other_account', '1815-06-18T11:30:00.000Z', '1815-06-19T12:00:00.000Z', { accountId: 'acc_2' }),
        );
      });
      const ALL = { listed: 100, counted: 1000 };
      const displaced = async (within?: TimeRange, bounds = ALL, accountId = 'acc_1', timelineId = 'tml_1') => {
        const tally = await events().tallyDisplaced(accountId, timelineId, within, bounds);
        return { ...tally, first: idsOf(tally.first) };
      };
      const manipulated = (within: TimeRange, bounds = ALL, accountId = 'acc_1', timelineId = 'tml_1') =>
        events().tallyManipulated(accountId, timelineId, within, bounds);

      it("counts and lists the timeline's displaced events by original time, the whole events", async () => {
        expect(await displaced()).toEqual({ first: ['evt_early', 'evt_moved'], count: 2, capped: false });
        const [first] = (await events().tallyDisplaced('acc_1', 'tml_1', undefined, ALL)).first;
        expect(first).toEqual(moved('evt_early', '1815-06-17T09:00:00.000Z', '1815-06-18T18:00:00.000Z'));
      });

      it('within a range, takes those whose current or original time is in it, inclusive at both ends', async () => {
        expect(await displaced(range('1815-06-18T11:30:00.000Z/1815-06-18T11:30:00.000Z'))).toEqual({
          first: ['evt_moved'],
          count: 1,
          capped: false,
        });
        expect(await displaced(range('1815-06-18T12:00:00Z/1815-06-19T12:00:00.000Z'))).toMatchObject({
          first: ['evt_early', 'evt_moved'],
          count: 2,
        });
        expect(await displaced(range('1815-06-20T00:00:00.000Z/1815-06-20T23:59:59.999Z'))).toEqual({
          first: [],
          count: 0,
          capped: false,
        });
      });

      it('lists the manipulated ids of a range by current time, moved, moved back and records alike', async () => {
        expect(await manipulated(range('1815-06-17T00:00:00Z/1815-06-19T23:59:59Z'))).toEqual({
          first: ['evt_record', 'evt_back', 'evt_early', 'evt_moved'],
          count: 4,
          capped: false,
        });
        expect(await manipulated(range('1815-06-18T11:30:00.000Z/1815-06-18T11:30:00.000Z'))).toEqual({
          first: ['evt_moved'],
          count: 1,
          capped: false,
        });
      });

      it('lists no more than asked, and counts no further than asked, saying so', async () => {
        const within = range('1815-06-17T00:00:00Z/1815-06-19T23:59:59Z');
        expect(await manipulated(within, { listed: 2, counted: 4 })).toEqual({
          first: ['evt_record', 'evt_back'],
          count: 4,
          capped: false,
        });
        expect(await manipulated(within, { listed: 2, counted: 3 })).toMatchObject({ count: 3, capped: true });
        expect(await displaced(undefined, { listed: 1, counted: 1 })).toEqual({
          first: ['evt_early'],
          count: 1,
          capped: true,
        });
        expect(await displaced(within, { listed: 1, counted: 2 })).toEqual({
          first: ['evt_early'],
          count: 2,
          capped: false,
        });
      });

      it("counts only the timeline's and the account's own", async () => {
        expect(await displaced(undefined, ALL, 'acc_1', 'tml_2')).toMatchObject({ first: ['evt_other_timeline'] });
        expect(await displaced(undefined, ALL, 'acc_2')).toMatchObject({ first: ['evt_other_account'] });
        const everything = range('1815-01-01T00:00:00Z/1815-12-31T00:00:00Z');
        expect(await manipulated(everything, ALL, 'acc_2')).toMatchObject({ first: ['evt_other_account'] });
      });
    });

    describe('manipulations', () => {
      it("lists an event's manipulations first to last, every field intact, only the account's own", async () => {
        const first = aManipulation({ id: 'man_1', revision: 1 });
        const second = aManipulation({
          id: 'man_2',
          revision: 2,
          fromTime: at('1969-07-20T22:00:00.002Z'),
          toTime: at('1969-07-19T00:00:00.999Z'),
        });
        await events().addManipulation(second);
        await events().addManipulation(first);
        await events().addManipulation(aManipulation({ id: 'man_3', eventId: 'evt_2', revision: 1 }));
        await events().addManipulation(aManipulation({ accountId: 'acc_2', id: 'man_1', revision: 3 }));

        expect(await events().manipulationsOf('acc_1', 'evt_1', 10)).toEqual([first, second]);
        expect(idsOf(await events().manipulationsOf('acc_2', 'evt_1', 10))).toEqual(['man_1']);
        expect(await events().manipulationsOf('acc_1', 'evt_404', 10)).toEqual([]);
      });

      it('lists only the latest ones asked for, still first to last', async () => {
        for (const revision of [1, 2, 3, 4])
          await events().addManipulation(aManipulation({ id: `man_${revision}`, revision }));

        expect(idsOf(await events().manipulationsOf('acc_1', 'evt_1', 2))).toEqual(['man_3', 'man_4']);
      });
    });
  });
}
