import { Clock } from '../../../src/core/domain/clock';
import { Traveller } from '../../../src/core/domain/traveller';

/** A traveller of account `acc_1` at home on `primary`, its running clock showing `now`. */
export function aTravellerAtHome(now: Date | string = '2030-01-01T12:00:00Z'): Traveller {
  return Traveller.newcomer('acc_1', new Date(now));
}

/** A traveller away on `timelineId`, on the journey started by `journeyTravelId`. */
export function aTravellerAwayOn(
  timelineId: string,
  options: { clockReading?: Date | string; now?: Date | string; journeyTravelId?: string } = {},
): Traveller {
  const now = new Date(options.now ?? '2030-01-01T12:00:00Z');
  const reading = new Date(options.clockReading ?? '1969-07-20T20:17:40Z');
  return Traveller.restore({
    accountId: 'acc_1',
    clock: Clock.restore({ reading, readAt: now, paused: false }),
    timelineId,
    location: 'home',
    journeyTravelId: options.journeyTravelId ?? 'trv_1',
  });
}

/** A traveller at home on `primary` whose clock is paused at `reading`, so only shifts move it. */
export function aPausedTraveller(
  accountId = 'acc_1',
  reading: Date | string = '1969-07-20T20:17:40.123Z',
  now: Date | string = '2030-01-01T12:00:00Z',
): Traveller {
  return Traveller.restore({
    accountId,
    clock: Clock.restore({ reading: new Date(reading), readAt: new Date(now), paused: true }),
    timelineId: 'primary',
    location: 'home',
    journeyTravelId: null,
  });
}
