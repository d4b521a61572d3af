import { textKey } from '../../../../core/domain/text-key';
import type { Item } from '../../../../core/domain/item';
import type { ItemRepository } from '../../../../core/ports/repositories';
import type { Item as ItemRow, PrismaClient } from '../../../database/driver/generated/client';
import type { Row } from '../kysely';
import type { Writes } from '../unit-of-work/writes';

export class PostgresItemRepository implements ItemRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writes: Writes,
  ) {}

  add(item: Item): Promise<void> {
    return this.writes.insert('items', ['account_id', 'id'], itemRow(item));
  }

  save(item: Item): Promise<void> {
    const { account_id, id, ...fields } = itemRow(item);
    return this.writes.update('items', { account_id, id }, fields);
  }

  async findSame(
    accountId: string,
    item: Pick<Item, 'timelineId' | 'description' | 'location' | 'foundAt'>,
  ): Promise<Item | null> {
    // Few items share one place in time: fetch those, compare names as events do (textKey).
    const candidates = await this.prisma.item.findMany({
      where: { accountId, timelineId: item.timelineId, foundAt: item.foundAt },
      orderBy: { registeredAt: 'asc' },
    });
    const same = (stored: ItemRow) =>
      textKey(stored.description) === textKey(item.description) && textKey(stored.location) === textKey(item.location);
    const found = candidates.find(same);
    return found ? itemOf(found) : null;
  }

  async findManyForAccount(accountId: string, itemIds: readonly string[]): Promise<Item[]> {
    if (itemIds.length === 0) return [];
    const rows = await this.prisma.item.findMany({ where: { accountId, id: { in: [...itemIds] } } });
    return rows.map(itemOf);
  }
}

function itemRow(item: Item): Row<'items'> {
  return {
    account_id: item.accountId,
    id: item.id,
    description: item.description,
    location: item.location,
    timeline_id: item.timelineId,
    registered_at: item.registeredAt,
    found_at: item.foundAt,
    carried_home_by: item.carriedHomeBy,
  };
}

function itemOf(row: ItemRow): Item {
  return {
    accountId: row.accountId,
    id: row.id,
    description: row.description,
    location: row.location,
    timelineId: row.timelineId,
    registeredAt: row.registeredAt,
    foundAt: row.foundAt,
    carriedHomeBy: row.carriedHomeBy,
  };
}
