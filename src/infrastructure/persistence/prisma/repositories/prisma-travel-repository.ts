import type { Travel } from '../../../../core/domain/travel';
import type { TravelRepository } from '../../../../core/ports/repositories';
import type { Db } from '../db';

export class PrismaTravelRepository implements TravelRepository {
  constructor(private readonly db: Db) {}

  async add(travel: Travel): Promise<void> {
    await this.db.travel.create({ data: { ...travel, itemsTransported: [...travel.itemsTransported] } });
  }
}
