import { TimelineWindowExpired, TimeOutOfRange } from '../../../../src/core/domain/errors';
import { anAccount } from '../../../support/builders/account-mother';
import { aJourneyUnderWay, DESTINATION_TIME } from '../../../support/builders/journey-mother';
import { createTestCore } from '../../../support/builders/test-core';

const MOMENT = new Date('1815-06-18T11:00:00Z');

describe('TravelToMoment', () => {
  it('moves time and place at home on primary, recording the travel and the arrival', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    core.clock.advanceMinutes(1);

    const { travel, traveller } = await core.travelToMoment.execute({
      accountId,
      destinationTime: MOMENT,
      location: 'Waterloo',
    });

    expect(travel).toEqual({
      accountId,
      id: 'trv_1',
      destination: 'primary',
      fromTimelineId: 'primary',
      toTimelineId: 'primary',
      departedAt: core.clock.now(),
      arrivalTime: MOMENT,
      itemsTransported: [],
    });
    expect(core.database.travelsOf(accountId)).toEqual([travel]);
    expect(core.database.traveller(accountId)).toEqual(traveller);
    expect(traveller).toMatchObject({ timelineId: 'primary', location: 'Waterloo', journeyTravelId: null });
    core.clock.advanceMinutes(2);
    expect(core.database.traveller(accountId)?.currentTime(core.clock.now())).toEqual(new Date('1815-06-18T11:02:00Z'));
    expect(core.database.eventsOf(accountId)).toEqual([
      {
        accountId,
        id: expect.stringMatching(/^evt_/),
        timelineId: 'primary',
        kind: 'arrival',
        time: MOMENT,
        originalTime: MOMENT,
        description: 'Traveller arrives at Waterloo',
        location: 'Waterloo',
        subjectId: travel.id,
        recordedAt: new Date('2030-01-01T12:01:00Z'),
        revision: 0,
      },
    ]);
  });

  it('moves within the journey timeline while away, staying on the same journey', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { timeline } = await aJourneyUnderWay(core, accountId);
    const journeyTravelId = core.database.traveller(accountId)?.journeyTravelId;
    core.clock.advanceMinutes(5);
    const later = new Date(DESTINATION_TIME.getTime() + 6 * 3_600_000);

    const { travel } = await core.travelToMoment.execute({
      accountId,
      destinationTime: later,
      location: 'Tranquility Base',
    });

    expect(travel).toMatchObject({
      destination: timeline.id,
      fromTimelineId: timeline.id,
      toTimelineId: timeline.id,
      arrivalTime: later,
    });
    expect(core.database.traveller(accountId)).toMatchObject({
      timelineId: timeline.id,
      location: 'Tranquility Base',
      journeyTravelId,
    });
    expect(core.database.timeline(accountId, timeline.id)?.status).toBe('active');
    const arrivals = core.database.eventsOf(accountId).filter((event) => event.subjectId === travel.id);
    expect(arrivals).toMatchObject([
      { kind: 'arrival', timelineId: timeline.id, time: later, location: 'Tranquility Base' },
    ]);
  });

  it('keeps a paused clock paused, at the destination time', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    await core.pauseTime.execute({ accountId });

    await core.travelToMoment.execute({ accountId, destinationTime: MOMENT, location: 'Waterloo' });
    core.clock.advanceMinutes(30);

    expect(core.database.traveller(accountId)?.clock.paused).toBe(true);
    expect(core.database.traveller(accountId)?.currentTime(core.clock.now())).toEqual(MOMENT);
  });

  it('refuses a move on a journey whose window closed, storing the timeline as expired and nothing else', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { timeline } = await aJourneyUnderWay(core, accountId);
    core.clock.advanceMinutes(13);
    const before = core.database.contents();

    await expect(
      core.travelToMoment.execute({ accountId, destinationTime: MOMENT, location: 'Tranquility Base' }),
    ).rejects.toEqual(new TimelineWindowExpired(timeline.id, new Date('2030-01-01T12:12:00Z')));

    const after = core.database.contents();
    expect(core.database.timeline(accountId, timeline.id)?.status).toBe('expired');
    expect({ ...after, timelines: [] }).toEqual({ ...before, timelines: [] });
    expect(after.timelines.filter((stored) => stored.id !== timeline.id)).toEqual(
      before.timelines.filter((stored) => stored.id !== timeline.id),
    );
  });

  it('still moves exactly at the deadline of the window', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    await aJourneyUnderWay(core, accountId);
    core.clock.advanceMinutes(12);

    await core.travelToMoment.execute({ accountId, destinationTime: MOMENT, location: 'Tranquility Base' });

    expect(core.database.traveller(accountId)?.location).toBe('Tranquility Base');
  });

  it('refuses a move 1 ms after the deadline shown, for a journey created 999 ms into a second', async () => {
    const core = createTestCore('2030-01-01T12:00:00.999Z');
    const accountId = await anAccount(core);
    const { timeline } = await aJourneyUnderWay(core, accountId);
    core.clock.set('2030-01-01T12:12:00Z');
    await core.travelToMoment.execute({ accountId, destinationTime: MOMENT, location: 'Tranquility Base' });
    core.clock.set('2030-01-01T12:12:00.001Z');

    await expect(
      core.travelToMoment.execute({ accountId, destinationTime: MOMENT, location: 'Eagle' }),
    ).rejects.toEqual(new TimelineWindowExpired(timeline.id, new Date('2030-01-01T12:12:00Z')));
    expect(core.database.traveller(accountId)?.location).toBe('Tranquility Base');
  });

  it('refuses a time outside years 0001-9999 with TimeOutOfRange and changes nothing', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const before = core.database.contents();

    await expect(
      core.travelToMoment.execute({ accountId, destinationTime: new Date(Date.UTC(10000, 0, 1)), location: 'Nowhere' }),
    ).rejects.toBeInstanceOf(TimeOutOfRange);

    expect(core.database.contents()).toEqual(before);
  });
});
