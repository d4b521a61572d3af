import { Clock } from '../../../../core/domain/clock';
import { Traveller } from '../../../../core/domain/traveller';
import type { TravellerRepository } from '../../../../core/ports/repositories';
import type { Db } from '../db';

type TravellerRow = {
  accountId: string;
  clockReading: Date;
  clockReadAt: Date;
  clockPaused: boolean;
  timelineId: string;
  location: string;
  journeyTravelId: string | null;
};

export class PrismaTravellerRepository implements TravellerRepository {
  constructor(private readonly db: Db) {}

  async add(traveller: Traveller): Promise<void> {
    await this.db.traveller.create({ data: toRow(traveller) });
  }

  async getForAccount(accountId: string): Promise<Traveller> {
    const row = await this.db.traveller.findUniqueOrThrow({ where: { accountId } });
    return Traveller.restore({
      accountId: row.accountId,
      clock: Clock.restore({ reading: row.clockReading, readAt: row.clockReadAt, paused: row.clockPaused }),
      timelineId: row.timelineId,
      location: row.location,
      journeyTravelId: row.journeyTravelId,
    });
  }

  async save(traveller: Traveller): Promise<void> {
    const { accountId, ...state } = toRow(traveller);
    await this.db.traveller.update({ where: { accountId }, data: state });
  }
}

function toRow(traveller: Traveller): TravellerRow {
  return {
    accountId: traveller.accountId,
    clockReading: traveller.clock.reading,
    clockReadAt: traveller.clock.readAt,
    clockPaused: traveller.clock.paused,
    timelineId: traveller.timelineId,
    location: traveller.location,
    journeyTravelId: traveller.journeyTravelId,
  };
}
