import { Clock } from '../../../../core/domain/clock';
import { Traveller } from '../../../../core/domain/traveller';
import type { TravellerReads } from '../../../../core/ports/repositories';
import type { SqlRunner } from '../../../database/driver/sql-runner';
import { READ_TRAVELLER, TRAVELLER_VERSION } from '../statements/travellers';
import type { KnownTraveller } from '../unit-of-work/known-travellers';
import type { TravellerRow } from '../unit-of-work/gated-statement';

/** The account's traveller outside any unit of work, read alone; a unit sees its own (ExclusiveWorkRules). */
export class PostgresTravellerReads implements TravellerReads {
  constructor(private readonly sql: SqlRunner) {}

  async getForAccount(accountId: string): Promise<Traveller> {
    const start = await readStart(this.sql, accountId);
    if (!start) throw new Error(`account ${accountId} has no traveller`);
    return start.traveller;
  }
}

/** The traveller with its version, where a unit of work starts; null for an account that has none yet. */
export async function readStart(sql: SqlRunner, accountId: string): Promise<KnownTraveller | null> {
  const [row] = await READ_TRAVELLER.run(sql, { accountId });
  return row ? { traveller: travellerFromRow(row), version: row.version } : null;
}

/** The traveller's version alone (null: no traveller), to tell whether anything moved it. */
export async function versionOf(sql: SqlRunner, accountId: string): Promise<string | null> {
  const [row] = await TRAVELLER_VERSION.run(sql, { accountId });
  return row?.version ?? null;
}

export function travellerFromRow(row: TravellerRow): Traveller {
  return Traveller.restore({
    accountId: row.account_id,
    clock: Clock.restore({ reading: row.clock_reading, readAt: row.clock_read_at, paused: row.clock_paused }),
    timelineId: row.timeline_id,
    location: row.location,
    journeyTravelId: row.journey_travel_id,
  });
}

export function travellerRow(traveller: Traveller): TravellerRow {
  return {
    account_id: traveller.accountId,
    clock_reading: traveller.clock.reading,
    clock_read_at: traveller.clock.readAt,
    clock_paused: traveller.clock.paused,
    timeline_id: traveller.timelineId,
    location: traveller.location,
    journey_travel_id: traveller.journeyTravelId,
  };
}
