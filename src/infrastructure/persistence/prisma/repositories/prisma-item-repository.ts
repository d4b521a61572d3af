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

  findSame(
    accountId: string,
    item: Pick<Item, 'timelineId' | 'description' | 'location' | 'foundAt'>,
  ): Promise<Item | null> {
    // Descriptions and places compare ignoring case, as event searches do.
    return this.db.item.findFirst({
      where: {
        accountId,
        timelineId: item.timelineId,
        foundAt: item.foundAt,
        description: { equals: item.description, mode: 'insensitive' },
        location: { equals: item.location, mode: 'insensitive' },
      },
      orderBy: { registeredAt: 'asc' },
    });
  }

  findManyForAccount(accountId: string, itemIds: readonly string[]): Promise<Item[]> {
    if (itemIds.length === 0) return Promise.resolve([]);
    return this.db.item.findMany({ where: { accountId, id: { in: [...itemIds] } } });
  }
}
