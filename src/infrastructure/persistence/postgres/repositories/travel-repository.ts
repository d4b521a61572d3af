import type { Travel } from '../../../../core/domain/travel';
import type { TravelRepository } from '../../../../core/ports/repositories';
import type { Writes } from '../unit-of-work/writes';

export class PostgresTravelRepository implements TravelRepository {
  constructor(private readonly writes: Writes) {}

  add(travel: Travel): Promise<void> {
    return this.writes.insert('travels', ['account_id', 'id'], {
      account_id: travel.accountId,
      id: travel.id,
      destination: travel.destination,
      from_timeline_id: travel.fromTimelineId,
      to_timeline_id: travel.toTimelineId,
      departed_at: travel.departedAt,
      arrival_time: travel.arrivalTime,
      items_transported: [...travel.itemsTransported],
    });
  }
}
