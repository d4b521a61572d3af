import { itemRepositoryContract } from '../../support/contracts/item-repository.contract';
import { prismaRepositoriesOnTestDatabase } from '../../support/contracts/prisma-subject';
import type { Item } from '../../../src/core/domain/item';
jest.setTimeout(30_000);
const make = prismaRepositoriesOnTestDatabase();
itemRepositoryContract('ILIKE probe', async () => {
  const subject = await make();
  const items = subject.repos.items;
  const db = (items as unknown as { db: { $queryRaw: (s: TemplateStringsArray, ...v: unknown[]) => Promise<Item[]> } }).db;
  items.findSame = async (accountId, item) => {
    const rows = await db.$queryRaw`SELECT account_id AS "accountId", id FROM items WHERE account_id = ${accountId} AND timeline_id = ${item.timelineId} AND found_at = ${item.foundAt} AND description ILIKE ${item.description} AND location ILIKE ${item.location}`;
    return rows[0] ? ({ ...rows[0] } as Item) : null;
  };
  return subject;
});
