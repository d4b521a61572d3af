import {
  AnchorNotFound,
  DestinationNotFound,
  ItemsStrandedByExpiredWindow,
  JourneyInProgress,
  TimelineClosed,
  TimelineWindowExpired,
  UnknownItems,
} from '../../../../src/core/domain/errors';
import { anAccount } from '../../../support/builders/account-mother';
import { aJourneyUnderWay, DESTINATION_TIME } from '../../../support/builders/journey-mother';
import { createTestCore, PRESENT, type TestCore } from '../../../support/builders/test-core';

const present = new Date(PRESENT);

describe('Travel', () => {
  it("follows the spec's typical order: anchor, timeline, travel, items, paradox check, home with items", async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);

    const anchor = await core.createAnchor.execute({ accountId, description: 'Before leaving' });
    const timeline = await core.createTimeline.execute({
      accountId,
      name: 'Moon landing',
      destinationTime: DESTINATION_TIME,
    });

    core.clock.advanceMinutes(1);
    const outbound = await core.travel.execute({ accountId, destination: timeline.id });
    expect(outbound.travel).toEqual({
      accountId,
      id: 'trv_1',
      destination: timeline.id,
      fromTimelineId: 'primary',
      toTimelineId: timeline.id,
      departedAt: new Date('2030-01-01T12:01:00Z'),
      arrivalTime: DESTINATION_TIME,
      itemsTransported: [],
    });
    expect(core.database.timeline(accountId, timeline.id)?.status).toBe('active');
    expect(core.database.traveller(accountId)).toMatchObject({ timelineId: timeline.id, journeyTravelId: 'trv_1' });

    core.clock.advanceMinutes(2);
    const { item: rock } = await core.registerItem.execute({
      accountId,
      description: 'A moon rock',
      location: 'Sea of Tranquility',
    });
    const { item: flag } = await core.registerItem.execute({ accountId, description: 'A flag' });

    const verdict = await core.checkParadox.execute({
      accountId,
      timelineId: timeline.id,
      proposedChanges: [
        { kind: 'event', event: 'Eagle lands', time: DESTINATION_TIME },
        { kind: 'item', itemId: rock.id },
      ],
    });
    expect(verdict.stable).toBe(true);

    core.clock.advanceMinutes(5);
    const homeward = await core.travel.execute({
      accountId,
      destination: anchor.id,
      itemsTransported: [rock.id, flag.id],
    });

    expect(homeward.travel).toMatchObject({
      id: 'trv_2',
      destination: anchor.id,
      fromTimelineId: timeline.id,
      toTimelineId: 'primary',
      arrivalTime: anchor.timestamp,
      itemsTransported: [rock.id, flag.id],
    });
    expect(homeward.traveller).toMatchObject({ timelineId: 'primary', journeyTravelId: null });
    expect(homeward.traveller.currentTime(core.clock.now())).toEqual(present);
    expect(core.database.traveller(accountId)).toEqual(homeward.traveller);
    expect(core.database.timeline(accountId, timeline.id)?.status).toBe('completed');
    expect(core.database.item(accountId, rock.id)?.carriedHomeBy).toBe('trv_2');
    expect(core.database.item(accountId, flag.id)?.carriedHomeBy).toBe('trv_2');
    expect(core.database.travelsOf(accountId).map((travel) => travel.id)).toEqual(['trv_1', 'trv_2']);
  });

  it("arrives at the present when the destination is 'primary'", async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { timeline } = await aJourneyUnderWay(core, accountId);
    core.clock.advanceMinutes(4);

    const result = await core.travel.execute({ accountId, destination: 'primary' });

    expect(result.travel.arrivalTime).toEqual(core.clock.now());
    expect(core.database.traveller(accountId)?.timelineId).toBe('primary');
    expect(core.database.timeline(accountId, timeline.id)?.status).toBe('completed');
  });

  it('refuses unknown items, naming exactly the offending ids, and changes nothing', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { anchor } = await aJourneyUnderWay(core, accountId);
    const { item: rock } = await core.registerItem.execute({ accountId, description: 'A moon rock' });
    const before = core.database.contents();

    await expect(
      core.travel.execute({
        accountId,
        destination: anchor.id,
        itemsTransported: [rock.id, 'itm_404', 'itm_405', 'itm_404'],
      }),
    ).rejects.toMatchObject({ code: 'unknown_items', details: { item_ids: ['itm_404', 'itm_405'] } });
    expect(core.database.contents()).toEqual(before);
  });

  it("refuses another account's item as unknown and changes nothing", async () => {
    const core = createTestCore();
    const owner = await anAccount(core);
    await aJourneyUnderWay(core, owner);
    const { item: theirs } = await core.registerItem.execute({ accountId: owner, description: 'A moon rock' });
    const accountId = await anAccount(core);
    const { anchor } = await aJourneyUnderWay(core, accountId);
    const before = core.database.contents();

    await expect(
      core.travel.execute({ accountId, destination: anchor.id, itemsTransported: [theirs.id] }),
    ).rejects.toEqual(new UnknownItems([theirs.id]));
    expect(core.database.contents()).toEqual(before);
  });

  it('refuses a timeline whose window has passed, storing its expiry and nothing else', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const timeline = await core.createTimeline.execute({
      accountId,
      name: 'Moon landing',
      destinationTime: DESTINATION_TIME,
    });
    core.clock.advanceMinutes(13);
    const before = core.database.contents();

    await expect(core.travel.execute({ accountId, destination: timeline.id })).rejects.toBeInstanceOf(
      TimelineWindowExpired,
    );

    const after = core.database.contents();
    expect(core.database.timeline(accountId, timeline.id)).toEqual(timeline.withStatus('expired'));
    expect({ ...after, timelines: [] }).toEqual({ ...before, timelines: [] });
    expect(after.timelines.filter((stored) => stored.id !== timeline.id)).toEqual(
      before.timelines.filter((stored) => stored.id !== timeline.id),
    );
  });

  describe('a timeline created 999 ms into a second', () => {
    const shownDeadline = new Date('2030-01-01T12:12:00Z');

    async function aTimelineCreatedLateInASecond() {
      const core = createTestCore('2030-01-01T12:00:00.999Z');
      const accountId = await anAccount(core);
      const timeline = await core.createTimeline.execute({
        accountId,
        name: 'Moon landing',
        destinationTime: DESTINATION_TIME,
      });
      return { core, accountId, timeline };
    }

    it('is reached exactly at the deadline shown (created_at cut to the second, plus the window)', async () => {
      const { core, accountId, timeline } = await aTimelineCreatedLateInASecond();
      core.clock.set(shownDeadline);

      await core.travel.execute({ accountId, destination: timeline.id });

      expect(core.database.timeline(accountId, timeline.id)?.status).toBe('active');
    });

    it('is refused 1 ms after the deadline shown, though less than a window after the stored instant', async () => {
      const { core, accountId, timeline } = await aTimelineCreatedLateInASecond();
      core.clock.set(new Date(shownDeadline.getTime() + 1));

      await expect(core.travel.execute({ accountId, destination: timeline.id })).rejects.toEqual(
        new TimelineWindowExpired(timeline.id, shownDeadline),
      );
      expect(core.database.timeline(accountId, timeline.id)?.status).toBe('expired');
    });
  });

  it('refuses a completed timeline with TimelineClosed and changes nothing', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { timeline, anchor } = await aJourneyUnderWay(core, accountId);
    await core.travel.execute({ accountId, destination: anchor.id });
    const before = core.database.contents();

    await expect(core.travel.execute({ accountId, destination: timeline.id })).rejects.toBeInstanceOf(TimelineClosed);
    expect(core.database.contents()).toEqual(before);
  });

  it('refuses another timeline while away with JourneyInProgress and changes nothing', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    await aJourneyUnderWay(core, accountId);
    const other = await core.createTimeline.execute({
      accountId,
      name: 'Pyramids',
      destinationTime: new Date('1900-01-01T00:00:00Z'),
    });
    const before = core.database.contents();

    await expect(core.travel.execute({ accountId, destination: other.id })).rejects.toBeInstanceOf(JourneyInProgress);
    expect(core.database.contents()).toEqual(before);
  });

  it.each([
    ['an unknown id', () => 'tml_404'],
    ['an unknown anchor id', () => 'anc_404'],
  ])('refuses %s with DestinationNotFound and changes nothing', async (_label, destination) => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const before = core.database.contents();

    await expect(core.travel.execute({ accountId, destination: destination() })).rejects.toBeInstanceOf(
      DestinationNotFound,
    );
    expect(core.database.contents()).toEqual(before);
  });

  it("refuses another account's timeline and anchor with DestinationNotFound", async () => {
    const core = createTestCore();
    const owner = await anAccount(core);
    const theirs = await aJourneyUnderWay(core, owner);
    const accountId = await anAccount(core);

    await expect(core.travel.execute({ accountId, destination: theirs.timeline.id })).rejects.toMatchObject({
      code: 'destination_not_found',
      details: { destination: theirs.timeline.id },
    });
    await expect(core.travel.execute({ accountId, destination: theirs.anchor.id })).rejects.toBeInstanceOf(
      DestinationNotFound,
    );
    expect(core.database.traveller(accountId)?.timelineId).toBe('primary');
  });

  it('comes home late without items: the journey is stored as expired', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { timeline, anchor } = await aJourneyUnderWay(core, accountId);
    core.clock.advanceMinutes(30);

    await core.travel.execute({ accountId, destination: anchor.id });

    expect(core.database.traveller(accountId)?.timelineId).toBe('primary');
    expect(core.database.timeline(accountId, timeline.id)?.status).toBe('expired');
  });

  it('refuses to come home late with items, and changes nothing', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { anchor } = await aJourneyUnderWay(core, accountId);
    const { item: rock } = await core.registerItem.execute({ accountId, description: 'A moon rock' });
    core.clock.advanceMinutes(30);
    const before = core.database.contents();

    await expect(
      core.travel.execute({ accountId, destination: anchor.id, itemsTransported: [rock.id] }),
    ).rejects.toBeInstanceOf(ItemsStrandedByExpiredWindow);
    expect(core.database.contents()).toEqual(before);
  });

  it('refuses items already carried home, and changes nothing', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const first = await aJourneyUnderWay(core, accountId);
    const { item: rock } = await core.registerItem.execute({ accountId, description: 'A moon rock' });
    await core.travel.execute({ accountId, destination: first.anchor.id, itemsTransported: [rock.id] });
    const second = await aJourneyUnderWay(core, accountId, { name: 'Second trip' });
    const before = core.database.contents();

    await expect(
      core.travel.execute({ accountId, destination: second.anchor.id, itemsTransported: [rock.id] }),
    ).rejects.toMatchObject({ code: 'items_already_home', details: { item_ids: [rock.id] } });
    expect(core.database.contents()).toEqual(before);
    expect(core.database.item(accountId, rock.id)?.carriedHomeBy).toBe('trv_2');
  });

  it('moves within the journey timeline to an anchor set there, arriving at its timestamp', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { timeline } = await aJourneyUnderWay(core, accountId);
    core.clock.advanceMinutes(1);
    const touchdown = await core.createAnchor.execute({ accountId, description: 'Touchdown' });
    core.clock.advanceMinutes(5);

    const result = await core.travel.execute({ accountId, destination: touchdown.id });

    expect(touchdown).toMatchObject({
      timelineId: timeline.id,
      timestamp: new Date(DESTINATION_TIME.getTime() + 60_000),
    });
    expect(result.travel).toMatchObject({
      fromTimelineId: timeline.id,
      toTimelineId: timeline.id,
      arrivalTime: touchdown.timestamp,
    });
    expect(core.database.traveller(accountId)).toMatchObject({ timelineId: timeline.id, journeyTravelId: 'trv_1' });
    expect(core.database.traveller(accountId)?.currentTime(core.clock.now())).toEqual(touchdown.timestamp);
    expect(core.database.timeline(accountId, timeline.id)?.status).toBe('active');
  });

  it('refuses an anchor on a completed timeline with TimelineClosed and changes nothing', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { anchor: home } = await aJourneyUnderWay(core, accountId);
    const touchdown = await core.createAnchor.execute({ accountId, description: 'Touchdown' });
    await core.travel.execute({ accountId, destination: home.id });
    const before = core.database.contents();

    await expect(core.travel.execute({ accountId, destination: touchdown.id })).rejects.toBeInstanceOf(TimelineClosed);
    expect(core.database.contents()).toEqual(before);
  });

  it('serialises the travels of one account: two concurrent departures cannot both win', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const one = await core.createTimeline.execute({ accountId, name: 'One', destinationTime: DESTINATION_TIME });
    const two = await core.createTimeline.execute({ accountId, name: 'Two', destinationTime: DESTINATION_TIME });

    const results = await Promise.allSettled([
      core.travel.execute({ accountId, destination: one.id }),
      core.travel.execute({ accountId, destination: two.id }),
    ]);

    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected']);
    expect(results[1]?.status === 'rejected' && results[1].reason).toBeInstanceOf(JourneyInProgress);
    expect(core.database.traveller(accountId)?.timelineId).toBe(one.id);
    expect(core.database.timeline(accountId, two.id)?.status).toBe('open');
  });

  describe("with only: 'anchor' (returning to an anchor)", () => {
    it('returns to an anchor as without it', async () => {
      const core = createTestCore();
      const accountId = await anAccount(core);
      const { anchor } = await aJourneyUnderWay(core, accountId);

      const result = await core.travel.execute({ accountId, destination: anchor.id, only: 'anchor' });

      expect(result.traveller).toMatchObject({ timelineId: 'primary', location: anchor.location });
      expect(result.travel.arrivalTime).toEqual(anchor.timestamp);
    });

    it.each([
      [
        'an existing timeline id',
        async (core: TestCore, accountId: string) => (await aJourneyUnderWay(core, accountId)).timeline.id,
      ],
      ["'primary'", async () => 'primary'],
      ['an unknown id', async () => 'anc_404'],
    ])('refuses %s with AnchorNotFound and changes nothing', async (_label, destinationOf) => {
      const core = createTestCore();
      const accountId = await anAccount(core);
      const destination = await destinationOf(core, accountId);
      const before = core.database.contents();

      await expect(core.travel.execute({ accountId, destination, only: 'anchor' })).rejects.toEqual(
        new AnchorNotFound(destination),
      );
      expect(core.database.contents()).toEqual(before);
    });
  });

  describe('arrival events', () => {
    const arrivalsOf = (core: TestCore, accountId: string) =>
      core.database.eventsOf(accountId).filter((event) => event.kind === 'arrival');

    it('records exactly one arrival per travel, at the arrival time and place, depending on the travel', async () => {
      const core = createTestCore();
      const accountId = await anAccount(core);
      const anchor = await core.createAnchor.execute({ accountId, description: 'Before leaving' });
      const timeline = await core.createTimeline.execute({
        accountId,
        name: 'Moon landing',
        destinationTime: DESTINATION_TIME,
      });

      core.clock.advanceMinutes(1);
      const outbound = await core.travel.execute({ accountId, destination: timeline.id });
      expect(arrivalsOf(core, accountId)).toEqual([
        {
          accountId,
          id: expect.stringMatching(/^evt_/),
          timelineId: timeline.id,
          kind: 'arrival',
          time: DESTINATION_TIME,
          originalTime: DESTINATION_TIME,
          description: 'Traveller arrives at Moon landing',
          location: 'Moon landing',
          subjectId: outbound.travel.id,
          recordedAt: core.clock.now(),
          revision: 0,
        },
      ]);

      core.clock.advanceMinutes(1);
      const homeward = await core.travel.execute({ accountId, destination: anchor.id });
      const arrivals = arrivalsOf(core, accountId);
      expect(arrivals).toHaveLength(2);
      expect(arrivals[1]).toMatchObject({
        timelineId: 'primary',
        time: anchor.timestamp,
        location: anchor.location,
        description: `Traveller arrives at ${anchor.location}`,
        subjectId: homeward.travel.id,
      });
    });

    it("records the arrival at the present and at home when travelling to 'primary'", async () => {
      const core = createTestCore();
      const accountId = await anAccount(core);
      await aJourneyUnderWay(core, accountId);
      core.clock.advanceMinutes(4);

      const result = await core.travel.execute({ accountId, destination: 'primary' });

      expect(arrivalsOf(core, accountId).filter((event) => event.subjectId === result.travel.id)).toMatchObject([
        { timelineId: 'primary', time: core.clock.now(), location: 'home' },
      ]);
    });

    it('records no arrival for a refused travel', async () => {
      const core = createTestCore();
      const accountId = await anAccount(core);
      const timeline = await core.createTimeline.execute({
        accountId,
        name: 'Moon landing',
        destinationTime: DESTINATION_TIME,
      });
      core.clock.advanceMinutes(13);

      await expect(core.travel.execute({ accountId, destination: timeline.id })).rejects.toBeInstanceOf(
        TimelineWindowExpired,
      );
      await expect(core.travel.execute({ accountId, destination: 'tml_404' })).rejects.toBeInstanceOf(
        DestinationNotFound,
      );

      expect(arrivalsOf(core, accountId)).toEqual([]);
    });

    it('gives each of many travels its own arrival event', async () => {
      const core = createTestCore();
      const accountId = await anAccount(core);
      const anchor = await core.createAnchor.execute({ accountId, description: 'Before leaving' });
      const travelIds: string[] = [];
      for (let trip = 1; trip <= 3; trip += 1) {
        const timeline = await core.createTimeline.execute({
          accountId,
          name: `Trip ${trip}`,
          destinationTime: DESTINATION_TIME,
        });
        travelIds.push((await core.travel.execute({ accountId, destination: timeline.id })).travel.id);
        travelIds.push((await core.travel.execute({ accountId, destination: anchor.id })).travel.id);
      }

      expect(arrivalsOf(core, accountId).map((event) => event.subjectId)).toEqual(travelIds);
      expect(new Set(arrivalsOf(core, accountId).map((event) => event.id)).size).toBe(travelIds.length);
    });
  });
});
