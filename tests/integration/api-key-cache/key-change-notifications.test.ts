// The database announces key changes itself (trigger + NOTIFY, migration
// 20261122050000_api_key_change_notifications), and a pool whose connections LISTEN hears its own
// changes at the commit: on PostgreSQL (DATABASE_URL) and on the embedded PGlite alike.
import { permissionsOf, type Permissions } from '../../../src/core/domain/api-key-permissions';
import type { ApiKey } from '../../../src/core/domain/account';
import {
  EVERY_KEY,
  keyChangeListener,
  type KeyChangeTarget,
} from '../../../src/infrastructure/api-key-cache/key-change-listener';
import { PostgresTransactionBoundary } from '../../../src/infrastructure/persistence/postgres/transaction-boundary';
import { KeyedRequests } from '../../../src/infrastructure/persistence/postgres/unit-of-work/keyed-requests';
import { anAccountRecord } from '../../support/contracts/subject';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

jest.setTimeout(30_000);

/** Records what it is told, as the cache would act on it. */
function recordingTarget(): KeyChangeTarget & { readonly heard: string[] } {
  const heard: string[] = [];
  return {
    heard,
    forget: (keyId) => heard.push(keyId),
    forgetAll: () => heard.push(EVERY_KEY),
    suspend: () => undefined,
    resume: () => undefined,
  };
}

function aKey(id: string, overrides: Partial<ApiKey> = {}): ApiKey {
  return {
    id,
    accountId: 'acc_1',
    prefix: `tns_${id}`,
    digest: `digest-of-${id}`,
    name: null,
    createdAt: new Date('2030-01-01T12:00:00Z'),
    lastUsedAt: null,
    revokedAt: null,
    expiresAt: null,
    permissions: null,
    ...overrides,
  };
}

describe('API key change notifications', () => {
  const target = recordingTarget();
  let database: TestDatabase;
  let transactions: PostgresTransactionBoundary;

  beforeAll(async () => {
    database = await provisionTestDatabase({ onConnect: keyChangeListener(target).prepareConnection });
    transactions = new PostgresTransactionBoundary(database, new KeyedRequests(database.sql));
    await transactions.exclusive('acc_1', async (repos) => {
      await repos.accounts.add(anAccountRecord('acc_1'));
      for (const id of ['key_1', 'key_2', 'key_3', 'key_4', 'key_5']) await repos.apiKeys.add(aKey(id));
    });
  });
  afterAll(() => database.close());
  beforeEach(() => target.heard.splice(0));

  it('announces a revocation when its transaction commits: not before, and before the commit returns', async () => {
    const heardInside: string[][] = [];
    await transactions.exclusive('acc_1', async (repos) => {
      await repos.apiKeys.save(aKey('key_1', { revokedAt: new Date('2030-01-01T12:05:00Z') }));
      heardInside.push([...target.heard]);
    });
    expect(heardInside).toEqual([[]]);
    expect(target.heard).toEqual(['key_1']);
  });

  it('never announces a change that rolls back', async () => {
    await expect(
      transactions.exclusive('acc_1', async (repos) => {
        await repos.apiKeys.save(aKey('key_2', { revokedAt: new Date('2030-01-01T12:05:00Z') }));
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    // A later round trip on the same connection, where a late notification would show.
    await database.prisma.$queryRaw`SELECT 1`;
    expect(target.heard).toEqual([]);
  });

  it('announces a moved expiry, but not a new name nor a recorded use', async () => {
    await transactions.exclusive('acc_1', (repos) => repos.apiKeys.save(aKey('key_2', { name: 'renamed' })));
    await transactions.count(({ keyUses }) =>
      keyUses.record('key_2', new Date('2030-01-01T12:06:00Z'), new Date('2030-01-01T12:05:00Z')),
    );
    expect(target.heard).toEqual([]);
    await transactions.exclusive('acc_1', (repos) =>
      repos.apiKeys.save(aKey('key_2', { name: 'renamed', expiresAt: new Date('2030-01-02T00:00:00Z') })),
    );
    expect(target.heard).toEqual(['key_2']);
  });

  it('announces a change of permissions, not the same permissions written again', async () => {
    const readsEvents = permissionsOf({ events: 'read' });
    const save = (permissions: Permissions) =>
      transactions.exclusive('acc_1', (repos) => repos.apiKeys.save(aKey('key_3', { permissions })));
    await save(readsEvents);
    expect(target.heard).toEqual(['key_3']);
    await save(permissionsOf({ events: 'read' }));
    expect(target.heard).toEqual(['key_3']);
    await save(permissionsOf({ events: 'none' }));
    expect(target.heard).toEqual(['key_3', 'key_3']);
  });

  it('announces what an operator does in SQL: a revocation, a deletion, emptying the table', async () => {
    await database.prisma.$executeRaw`UPDATE api_keys SET revoked_at = now() WHERE id = 'key_3'`;
    await database.prisma.$executeRaw`DELETE FROM api_keys WHERE id = 'key_4'`;
    expect(target.heard).toEqual(['key_3', 'key_4']);
    target.heard.splice(0);
    await database.prisma.$executeRaw`DELETE FROM accounts WHERE id = 'acc_1'`; // its keys go with it
    expect([...target.heard].sort()).toEqual(['key_1', 'key_2', 'key_3', 'key_5']);
    await database.prisma.$executeRawUnsafe('TRUNCATE api_keys');
    expect(target.heard.at(-1)).toBe(EVERY_KEY);
  });
});
