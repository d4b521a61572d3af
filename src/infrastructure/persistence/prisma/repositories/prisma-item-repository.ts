import { textKey } from '../../../../core/domain/text-key';
import type { Item } from '../../../../core/domain/item';
import type { ItemRepository } from '../../../../core/ports/repositories';
import type { Db } from '../db';

export class PrismaItemRepository implements ItemRepository {
  constructor(private readonly db: Db) {}

  async add(item: Item): Promise<void> {
    await this.db.item.create({ data: item });
  }

  async save(item: Item): Promise<void> {
    const { accountId, id, ...fields } = item;
    await this.db.item.update({ where: { accountId_id: { accountId, id } }, data: fields });
  }

  async findSame(
    accountId: string,
    item: Pick<Item, 'timelineId' | 'description' | 'location' | 'foundAt'>,
  ): Promise<Item | null> {
    // Few items share one place in time: fetch those, compare names as events do (textKey).
    const candidates = await this.db.item.findMany({
      where: { accountId, timelineId: item.timelineId, foundAt: item.foundAt },
      orderBy: { registeredAt: 'asc' },
    });
    const same = (stored: Item) =>
      textKey(stored.description) === textKey(item.description) && textKey(stored.location) === textKey(item.location);
    return candidates.find(same) ?? null;
  }

  findManyForAccount(accountId: string, itemIds: readonly string[]): Promise<Item[]> {
    if (itemIds.length === 0) return Promise.resolve([]);
    return this.db.item.findMany({ where: { accountId, id: { in: [...itemIds] } } });
  }
}
