// The slots of event streams per account (core/ports/stream-slots.ts), all its keys together, shared
// by every process on the database: at most the limit taken, also by concurrent takers and by
// several keys; a lease that runs out frees its slot; a release frees it at once; a renewal keeps it.
import { PostgresStreamSlots } from '../../../src/infrastructure/persistence/postgres/stream-slots';
import { plainRepositories } from '../../support/plain-repositories';
import { at, givenAccounts } from '../../support/contracts/subject';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

jest.setTimeout(30_000);

const LEASE_MS = 60_000;

describe('PostgresStreamSlots', () => {
  let database: TestDatabase;
  let slots: PostgresStreamSlots;
  let keys = 0;
  let accounts = 0;

  beforeAll(async () => {
    database = await provisionTestDatabase();
    slots = new PostgresStreamSlots(database.sql);
  });
  afterAll(() => database.close());

  /** A key of an account of its own, or of the account given. */
  async function aKey(accountId?: string): Promise<{ apiKeyId: string; accountId: string }> {
    const id = `key_${++keys}`;
    const owner = accountId ?? `acc_${++accounts}`;
    if (!accountId) await givenAccounts(plainRepositories(database), owner);
    await plainRepositories(database).apiKeys.add({
      id,
      accountId: owner,
      prefix: 'tns_x',
      digest: `digest-${id}`,
      name: null,
      createdAt: at('2026-11-25T00:00:00.000Z'),
      lastUsedAt: null,
      revokedAt: null,
      expiresAt: null,
      permissions: null,
    });
    return { apiKeyId: id, accountId: owner };
  }

  it('gives at most the limit of slots of an account, to concurrent takers too, and each account its own', async () => {
    const key = await aKey();
    const taken = await Promise.all(Array.from({ length: 10 }, (_, n) => slots.take(key, `h${n}`, 3, LEASE_MS)));
    expect(taken.filter(Boolean)).toHaveLength(3);
    expect(await slots.take(await aKey(), 'other', 3, LEASE_MS)).toBe(true);
  });

  it("counts every key of an account against the account's slots", async () => {
    const first = await aKey();
    const second = await aKey(first.accountId);
    expect(await slots.take(first, 'a', 2, LEASE_MS)).toBe(true);
    expect(await slots.take(second, 'b', 2, LEASE_MS)).toBe(true);
    expect(await slots.take(second, 'c', 2, LEASE_MS)).toBe(false);
    expect(await slots.take(first, 'd', 2, LEASE_MS)).toBe(false);
  });

  it('frees a slot when its holder releases it', async () => {
    const key = await aKey();
    expect(await slots.take(key, 'a', 1, LEASE_MS)).toBe(true);
    expect(await slots.take(key, 'b', 1, LEASE_MS)).toBe(false);
    await slots.release(key.accountId, 'a');
    expect(await slots.take(key, 'b', 1, LEASE_MS)).toBe(true);
  });

  it('frees a slot whose lease ran out (its process died), and keeps one that was renewed', async () => {
    const key = await aKey();
    expect(await slots.take(key, 'gone', 1, 1_000)).toBe(true);
    const other = await aKey();
    expect(await slots.take(other, 'kept', 1, 1_000)).toBe(true);
    expect(await slots.renew(['kept', 'never-taken'], LEASE_MS)).toEqual(['kept']);
    expect(await slots.take(key, 'early', 1, LEASE_MS)).toBe(false);
    // A second passes on the database's clock, by which leases count: every lease a second nearer its end.
    await database.sql.query(
      `UPDATE event_stream_slots SET expires_at = expires_at - interval '1 second' WHERE account_id IN ($1, $2)`,
      [key.accountId, other.accountId],
    );
    expect(await slots.take(key, 'next', 1, LEASE_MS)).toBe(true);
    expect(await slots.take(other, 'next', 1, LEASE_MS)).toBe(false);
  });

  it('renews no slot of a key revoked, expired or deleted: its holder learns it lost the key', async () => {
    const [revoked, expired, deleted, valid] = [await aKey(), await aKey(), await aKey(), await aKey()];
    for (const key of [revoked, expired, deleted, valid])
      expect(await slots.take(key, `on-${key.apiKeyId}`, 1, LEASE_MS)).toBe(true);
    await database.prisma.apiKey.update({ where: { id: revoked.apiKeyId }, data: { revokedAt: new Date() } });
    await database.prisma.apiKey.update({
      where: { id: expired.apiKeyId },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    await database.prisma.apiKey.delete({ where: { id: deleted.apiKeyId } });
    const holders = [revoked, expired, deleted, valid].map((key) => `on-${key.apiKeyId}`);
    expect(await slots.renew(holders, LEASE_MS)).toEqual([`on-${valid.apiKeyId}`]);
  });

  it('keeps the slots in an unlogged table: renewed by every process all the time, not worth a WAL flush', async () => {
    const [table] = await database.prisma.$queryRaw<{ relpersistence: string }[]>`
      SELECT relpersistence::text AS relpersistence FROM pg_class WHERE relname = 'event_stream_slots'`;
    expect(table?.relpersistence).toBe('u');
  });
});
