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
  /** The row as this transaction locked it, then saved it: nobody else can change it meanwhile. */
  private locked: Traveller | null = null;

  constructor(private readonly db: Db) {}

  /**
   * Locks the account's traveller row for the rest of the transaction (writers of one account queue
   * here, in every process) and keeps what it read, so the work's first read costs no round trip.
   */
  async lockForAccount(accountId: string): Promise<void> {
    const rows = await this.db.$queryRaw<TravellerRow[]>`
      SELECT account_id AS "accountId", clock_reading AS "clockReading", clock_read_at AS "clockReadAt",
             clock_paused AS "clockPaused", timeline_id AS "timelineId", location AS "location",
             journey_travel_id AS "journeyTravelId"
        FROM travellers WHERE account_id = ${accountId} FOR UPDATE`;
    this.locked = rows[0] ? toDomain(rows[0]) : null;
  }

  async add(traveller: Traveller): Promise<void> {
    await this.db.traveller.create({ data: toRow(traveller) });
  }

  async getForAccount(accountId: string): Promise<Traveller> {
    if (this.locked?.accountId === accountId) return this.locked;
    return toDomain(await this.db.traveller.findUniqueOrThrow({ where: { accountId } }));
  }

  async save(traveller: Traveller): Promise<void> {
    const { accountId, ...state } = toRow(traveller);
    await this.db.traveller.update({ where: { accountId }, data: state });
    if (this.locked?.accountId === accountId) this.locked = traveller;
  }
}

function toDomain(row: TravellerRow): Traveller {
  return Traveller.restore({
    accountId: row.accountId,
    clock: Clock.restore({ reading: row.clockReading, readAt: row.clockReadAt, paused: row.clockPaused }),
    timelineId: row.timelineId,
    location: row.location,
    journeyTravelId: row.journeyTravelId,
  });
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
