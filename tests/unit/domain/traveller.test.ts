import { Clock } from '../../../src/core/domain/clock';
import {
  ItemsAlreadyHome,
  ItemsNotOnJourney,
  ItemsStrandedByExpiredWindow,
  JourneyInProgress,
  TimelineClosed,
  TimelineWindowExpired,
} from '../../../src/core/domain/errors';
import type { Item } from '../../../src/core/domain/item';
import type { Timeline } from '../../../src/core/domain/timeline';
import { STARTING_LOCATION, Traveller, type Destination } from '../../../src/core/domain/traveller';
import { anAnchor } from '../../support/builders/anchor-builder';
import { anItem } from '../../support/builders/item-builder';
import { aTimeline, thePrimaryTimeline } from '../../support/builders/timeline-builder';
import { aTravellerAtHome, aTravellerAwayOn } from '../../support/builders/traveller-builder';

const created = new Date('2030-01-01T12:00:00Z');
const minutesLater = (minutes: number) => new Date(created.getTime() + minutes * 60_000);
const primary = thePrimaryTimeline('2029-01-01T00:00:00Z');
const moonLanding = aTimeline().withId('tml_1').createdAt(created).leadingTo('1969-07-20T20:17:40Z').build();

const toTimeline = (timeline: Timeline): Destination => ({ kind: 'timeline', timeline });

function travel(
  traveller: Traveller,
  destination: Destination,
  options: { now?: Date; journeyTimeline?: Timeline | null; carrying?: readonly Item[]; travelId?: string } = {},
) {
  return traveller.travel({
    travelId: options.travelId ?? 'trv_9',
    destination,
    journeyTimeline: options.journeyTimeline ?? null,
    carrying: options.carrying ?? [],
    now: options.now ?? minutesLater(1),
  });
}

describe('Traveller', () => {
  it('starts at home on primary with a running clock showing the present', () => {
    const traveller = aTravellerAtHome(created);
    expect(traveller).toMatchObject({ timelineId: 'primary', location: STARTING_LOCATION, journeyTravelId: null });
    expect(traveller.isHome).toBe(true);
    expect(traveller.currentTime(minutesLater(3))).toEqual(minutesLater(3));
  });

  describe('leaving home for a timeline', () => {
    it("arrives at the timeline's destination time and marks the timeline active", () => {
      const outcome = travel(aTravellerAtHome(created), toTimeline(moonLanding), { travelId: 'trv_1' });

      expect(outcome.arrivalTime).toEqual(new Date('1969-07-20T20:17:40Z'));
      expect(outcome.traveller).toMatchObject({ timelineId: 'tml_1', journeyTravelId: 'trv_1' });
      expect(outcome.traveller.isHome).toBe(false);
      expect(outcome.traveller.currentTime(minutesLater(1))).toEqual(new Date('1969-07-20T20:17:40Z'));
      expect(outcome.timelines).toEqual([moonLanding.withStatus('active')]);
      expect(outcome.timelines[0]?.status).toBe('active');
      expect(outcome.items).toEqual([]);
    });

    it('lets the clock run on from the destination time', () => {
      const outcome = travel(aTravellerAtHome(created), toTimeline(moonLanding), { now: minutesLater(1) });
      expect(outcome.traveller.currentTime(minutesLater(3))).toEqual(new Date('1969-07-20T20:19:40Z'));
    });

    it('arrives at the timestamp of an anchor set on that timeline', () => {
      const anchor = anAnchor({ id: 'anc_7', timelineId: 'tml_1', timestamp: new Date('1969-07-21T02:56:15Z') });
      const outcome = travel(aTravellerAtHome(created), { kind: 'anchor', anchor, timeline: moonLanding });

      expect(outcome.arrivalTime).toEqual(new Date('1969-07-21T02:56:15Z'));
      expect(outcome.traveller.timelineId).toBe('tml_1');
      expect(outcome.timelines.map((timeline) => timeline.status)).toEqual(['active']);
    });

    it('refuses a timeline whose window has passed with TimelineWindowExpired', () => {
      const traveller = aTravellerAtHome(created);
      expect(() => travel(traveller, toTimeline(moonLanding), { now: minutesLater(13) })).toThrow(
        TimelineWindowExpired,
      );
    });

    it('refuses a timeline stored as expired with TimelineWindowExpired', () => {
      const expired = aTimeline().createdAt(created).withStatus('expired').build();
      expect(() => travel(aTravellerAtHome(created), toTimeline(expired))).toThrow(TimelineWindowExpired);
    });

    it('refuses a completed timeline with TimelineClosed, even within its window', () => {
      const completed = aTimeline().createdAt(created).withStatus('completed').build();
      expect(() => travel(aTravellerAtHome(created), toTimeline(completed), { now: minutesLater(2) })).toThrow(
        TimelineClosed,
      );
    });
  });

  describe('while away', () => {
    const away = aTravellerAwayOn('tml_1', { journeyTravelId: 'trv_1' });
    const activeMoonLanding = moonLanding.withStatus('active');

    it('refuses another timeline with JourneyInProgress naming the current one', () => {
      const other = aTimeline().withId('tml_2').createdAt(created).build();
      let refusal: unknown;
      try {
        travel(away, toTimeline(other), { journeyTimeline: activeMoonLanding });
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(JourneyInProgress);
      expect(refusal).toMatchObject({ code: 'journey_in_progress', details: { current_timeline_id: 'tml_1' } });
    });

    it('may move within the timeline of the journey, which stays the same journey', () => {
      const anchor = anAnchor({ timelineId: 'tml_1', timestamp: new Date('1969-07-21T03:00:00Z') });
      const outcome = travel(away, { kind: 'anchor', anchor, timeline: activeMoonLanding }, { travelId: 'trv_2' });
      expect(outcome.traveller).toMatchObject({ timelineId: 'tml_1', journeyTravelId: 'trv_1' });
      expect(outcome.arrivalTime).toEqual(new Date('1969-07-21T03:00:00Z'));
      expect(outcome.timelines).toEqual([]);
    });
  });

  describe('coming home', () => {
    const away = aTravellerAwayOn('tml_1', { journeyTravelId: 'trv_1' });
    const journey = moonLanding.withStatus('active');
    const homeAnchor = anAnchor({ id: 'anc_1', timelineId: 'primary', timestamp: new Date('2030-01-01T11:55:00Z') });
    const toHomeAnchor: Destination = { kind: 'anchor', anchor: homeAnchor, timeline: primary };

    it('within the window completes the journey and arrives at the anchor timestamp', () => {
      const outcome = travel(away, toHomeAnchor, { journeyTimeline: journey, now: minutesLater(10) });

      expect(outcome.arrivalTime).toEqual(new Date('2030-01-01T11:55:00Z'));
      expect(outcome.traveller).toMatchObject({ timelineId: 'primary', journeyTravelId: null });
      expect(outcome.traveller.isHome).toBe(true);
      expect(outcome.timelines).toEqual([journey.withStatus('completed')]);
      expect(outcome.timelines[0]?.status).toBe('completed');
    });

    it("to 'primary' arrives at the present", () => {
      const outcome = travel(away, toTimeline(primary), { journeyTimeline: journey, now: minutesLater(10) });
      expect(outcome.arrivalTime).toEqual(minutesLater(10));
      expect(outcome.traveller.currentTime(minutesLater(10))).toEqual(minutesLater(10));
      expect(outcome.timelines.map((timeline) => timeline.status)).toEqual(['completed']);
    });

    it('exactly at the deadline still completes the journey', () => {
      const outcome = travel(away, toHomeAnchor, { journeyTimeline: journey, now: minutesLater(12) });
      expect(outcome.timelines.map((timeline) => timeline.status)).toEqual(['completed']);
    });

    it('carries the items home, recording the travel that carried them', () => {
      const rock = anItem({ id: 'itm_1' });
      const flag = anItem({ id: 'itm_2', description: 'A flag' });
      const outcome = travel(away, toHomeAnchor, {
        journeyTimeline: journey,
        carrying: [rock, flag],
        travelId: 'trv_2',
        now: minutesLater(10),
      });
      expect(outcome.items).toEqual([
        { ...rock, carriedHomeBy: 'trv_2' },
        { ...flag, carriedHomeBy: 'trv_2' },
      ]);
      expect(rock.carriedHomeBy).toBeNull();
    });

    it('after the window, without items, arrives home and marks the journey expired', () => {
      const outcome = travel(away, toHomeAnchor, { journeyTimeline: journey, now: minutesLater(30) });
      expect(outcome.traveller.timelineId).toBe('primary');
      expect(outcome.timelines).toEqual([journey.withStatus('expired')]);
      expect(outcome.items).toEqual([]);
    });

    it('after the window, with items, is refused: the items are stranded', () => {
      let refusal: unknown;
      try {
        travel(away, toHomeAnchor, { journeyTimeline: journey, carrying: [anItem()], now: minutesLater(30) });
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(ItemsStrandedByExpiredWindow);
      expect(refusal).toMatchObject({ code: 'items_stranded', details: { timeline_id: 'tml_1' } });
    });

    it('refuses items already carried home, naming them', () => {
      const carried = anItem({ id: 'itm_1', carriedHomeBy: 'trv_0' });
      const fresh = anItem({ id: 'itm_2' });
      let refusal: unknown;
      try {
        travel(away, toHomeAnchor, { journeyTimeline: journey, carrying: [fresh, carried], now: minutesLater(5) });
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(ItemsAlreadyHome);
      expect(refusal).toMatchObject({ code: 'items_already_home', details: { item_ids: ['itm_1'] } });
    });

    it('refuses items found elsewhere than the journey timeline, naming them', () => {
      const fromHome = anItem({ id: 'itm_home', timelineId: 'primary' });
      const fromEarlierTrip = anItem({ id: 'itm_old', timelineId: 'tml_0' });
      const fromHere = anItem({ id: 'itm_here' });
      expect(() =>
        travel(away, toHomeAnchor, {
          journeyTimeline: journey,
          carrying: [fromHome, fromHere, fromEarlierTrip],
          now: minutesLater(5),
        }),
      ).toThrow(
        expect.objectContaining({ code: 'items_not_on_journey', details: { item_ids: ['itm_home', 'itm_old'] } }),
      );
    });

    it('refuses to carry items when there is no journey to come home from', () => {
      const atHome = anItem({ id: 'itm_home', timelineId: 'primary' });
      expect(() =>
        travel(aTravellerAtHome(created), toHomeAnchor, { carrying: [atHome], now: minutesLater(5) }),
      ).toThrow(ItemsNotOnJourney);
    });

    it("arrives at the anchor's location, or home when travelling to 'primary'", () => {
      const byAnchor = travel(away, toHomeAnchor, { journeyTimeline: journey, now: minutesLater(5) });
      expect(byAnchor.traveller.location).toBe(homeAnchor.location);
      const byPrimary = travel(away, toTimeline(primary), { journeyTimeline: journey, now: minutesLater(5) });
      expect(byPrimary.traveller.location).toBe(STARTING_LOCATION);
    });

    it('from home to home changes no timeline', () => {
      const outcome = travel(aTravellerAtHome(created), toHomeAnchor, { now: minutesLater(5) });
      expect(outcome.traveller.timelineId).toBe('primary');
      expect(outcome.arrivalTime).toEqual(new Date('2030-01-01T11:55:00Z'));
      expect(outcome.timelines).toEqual([]);
    });
  });

  it("takes the timeline's name as its location on arrival, and refuses to take items along", () => {
    const outcome = travel(aTravellerAtHome(created), toTimeline(moonLanding));
    expect(outcome.traveller.location).toBe(moonLanding.name);
    expect(() =>
      travel(aTravellerAtHome(created), toTimeline(moonLanding), { carrying: [anItem({ timelineId: 'primary' })] }),
    ).toThrow(ItemsNotOnJourney);
  });

  it('keeps a paused clock paused across a travel, at the arrival time', () => {
    const paused = Traveller.restore({
      accountId: 'acc_1',
      clock: Clock.restore({ reading: created, readAt: created, paused: true }),
      timelineId: 'primary',
      location: STARTING_LOCATION,
      journeyTravelId: null,
    });
    const outcome = travel(paused, toTimeline(moonLanding), { now: minutesLater(1) });
    expect(outcome.traveller.clock.paused).toBe(true);
    expect(outcome.traveller.currentTime(minutesLater(11))).toEqual(new Date('1969-07-20T20:17:40Z'));
  });

  describe('moving within the timeline it is on', () => {
    const moment = new Date('1969-07-21T02:56:15Z');

    it('at home sets the time and place, staying on primary', () => {
      const moved = aTravellerAtHome(created).moveWithin({
        time: moment,
        location: 'Houston',
        currentTimeline: primary,
        now: minutesLater(1),
      });
      expect(moved).toMatchObject({ timelineId: 'primary', location: 'Houston', journeyTravelId: null });
      expect(moved.currentTime(minutesLater(2))).toEqual(new Date(moment.getTime() + 60_000));
    });

    it('while away stays on the same journey, within its window', () => {
      const away = aTravellerAwayOn('tml_1', { journeyTravelId: 'trv_1' });
      const moved = away.moveWithin({
        time: moment,
        location: 'Tranquility Base',
        currentTimeline: moonLanding.withStatus('active'),
        now: minutesLater(12),
      });
      expect(moved).toMatchObject({ timelineId: 'tml_1', location: 'Tranquility Base', journeyTravelId: 'trv_1' });
    });

    it('while away refuses once the window has closed, with TimelineWindowExpired', () => {
      const away = aTravellerAwayOn('tml_1', { journeyTravelId: 'trv_1' });
      expect(() =>
        away.moveWithin({
          time: moment,
          location: 'Tranquility Base',
          currentTimeline: moonLanding.withStatus('active'),
          now: minutesLater(13),
        }),
      ).toThrow(expect.objectContaining({ code: 'timeline_window_expired', details: { timeline_id: 'tml_1' } }));
    });

    it('keeps a paused clock paused at the new time', () => {
      const paused = aTravellerAtHome(created).pause(created);
      const moved = paused.moveWithin({
        time: moment,
        location: 'Houston',
        currentTimeline: primary,
        now: minutesLater(1),
      });
      expect(moved.clock.paused).toBe(true);
      expect(moved.currentTime(minutesLater(30))).toEqual(moment);
    });
  });

  it('pauses, shifts and resumes its clock without moving anywhere', () => {
    const away = aTravellerAwayOn('tml_1', {
      journeyTravelId: 'trv_1',
      clockReading: '1969-07-20T20:17:40Z',
      now: created,
    });
    const after = away
      .pause(minutesLater(1))
      .shiftBy(60 * 60_000, minutesLater(2))
      .resume(minutesLater(10));
    expect(after).toMatchObject({ timelineId: 'tml_1', location: away.location, journeyTravelId: 'trv_1' });
    expect(after.currentTime(minutesLater(10))).toEqual(new Date('1969-07-20T21:18:40Z'));
  });
});
