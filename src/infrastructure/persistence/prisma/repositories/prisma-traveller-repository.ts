import { Clock } from '../../../../core/domain/clock';
import { Traveller } from '../../../../core/domain/traveller';
import type { TravellerRepository } from '../../../../core/ports/repositories';
import type { Db } from '../db';
import { Prisma } from '../generated/client';
import { selectList, TRAVELLERS } from '../tables';

export type TravellerRow = {
  accountId: string;
  clockReading: Date;
  clockReadAt: Date;
  clockPaused: boolean;
  timelineId: string;
  location: string;
  journeyTravelId: string | null;
};

/** The traveller's columns for raw SQL, named as TravellerRow names them. */
export const TRAVELLER_SELECT = selectList(TRAVELLERS);

export class PrismaTravellerRepository implements TravellerRepository {
  /** The row as this transaction locked it, then saved it: nobody else can change it meanwhile. */
  private locked: Traveller | null = null;

  constructor(private readonly db: Db) {}

  /**
   * Locks the account's traveller row for the rest of the transaction (writers of one account queue
   * here, in every process) and keeps what it read, so the work's first read costs no round trip.
   * It moves the row's version on, so optimistic work that read the account before cannot commit.
   */
  async lockForAccount(accountId: string): Promise<void> {
    const rows = await this.db.$queryRaw<TravellerRow[]>`
      UPDATE travellers SET version = version + 1 WHERE account_id = ${accountId}
      RETURNING ${Prisma.raw(TRAVELLER_SELECT)}`;
    this.locked = rows[0] ? travellerFromRow(rows[0]) : null;
  }

  async add(traveller: Traveller): Promise<void> {
    await this.db.traveller.create({ data: travellerRow(traveller) });
  }

  async getForAccount(accountId: string): Promise<Traveller> {
    if (this.locked?.accountId === accountId) return this.locked;
    return travellerFromRow(await this.db.traveller.findUniqueOrThrow({ where: { accountId } }));
  }

  async save(traveller: Traveller): Promise<void> {
    const { accountId, ...state } = travellerRow(traveller);
    await this.db.traveller.update({ where: { accountId }, data: state });
    if (this.locked?.accountId === accountId) this.locked = traveller;
  }
}

export function travellerFromRow(row: TravellerRow): Traveller {
  return Traveller.restore({
    accountId: row.accountId,
    clock: Clock.restore({ reading: row.clockReading, readAt: row.clockReadAt, paused: row.clockPaused }),
    timelineId: row.timelineId,
    location: row.location,
    journeyTravelId: row.journeyTravelId,
  });
}

export function travellerRow(traveller: Traveller): TravellerRow {
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
