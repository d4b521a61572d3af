// What a test asks of a database that should hold every acknowledged write of a WriteLoad: after a
// crash, a restore from a backup, a failover.
import type { PrismaClient } from '../../src/infrastructure/database/driver/prisma-client';
import { call } from './process-client';
import { createdId, type LoadAccount, type Write, type WriteKind } from './write-load';
import type { Answer } from './process-client';

type Answered = Write & { answer: Answer };

/** The tables whose rows a write creates, and the kinds of write that create them. */
const CREATED: readonly { readonly table: string; readonly kinds: readonly WriteKind[] }[] = [
  { table: 'anchors', kinds: ['anchor'] },
  { table: 'items', kinds: ['item'] },
  { table: 'travels', kinds: ['travel', 'moment'] },
  { table: 'timelines', kinds: ['timeline'] },
];

/** The ids each table lacks of those the `writes` reported creating; an empty list per table when none. */
export async function missingCreations(
  prisma: PrismaClient,
  writes: readonly Answered[],
): Promise<Record<string, string[]>> {
  const accountIds = [...new Set(writes.map((write) => write.accountId))];
  const where = { where: { accountId: { in: accountIds } }, select: { id: true } };
  const held: Record<string, Set<string>> = {
    anchors: new Set((await prisma.anchor.findMany(where)).map((row) => row.id)),
    items: new Set((await prisma.item.findMany(where)).map((row) => row.id)),
    travels: new Set((await prisma.travel.findMany(where)).map((row) => row.id)),
    timelines: new Set((await prisma.timeline.findMany(where)).map((row) => row.id)),
  };
  return Object.fromEntries(
    CREATED.map(({ table, kinds }) => [
      table,
      writes
        .filter((write) => kinds.includes(write.kind))
        .map(createdId)
        .filter((id) => !held[table].has(id)),
    ]),
  );
}

/** Each keyed write of `writes` sent again with its key answers as it did first, replayed, acting once. */
export async function expectKeptAnswersReplayed(
  url: string,
  writes: readonly Answered[],
  accounts: readonly LoadAccount[],
): Promise<void> {
  for (const write of writes.filter((keyed) => keyed.idempotencyKey)) {
    const account = accounts.find((each) => each.id === write.accountId);
    const again = await call(url, 'POST', write.path, {
      auth: account?.auth,
      body: write.body,
      idempotencyKey: write.idempotencyKey,
    });
    expect(again).toMatchObject({
      status: write.answer.status,
      body: write.answer.body,
      headers: { 'idempotent-replayed': 'true' },
    });
  }
}
