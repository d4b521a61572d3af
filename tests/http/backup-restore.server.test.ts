// A backup of a PostgreSQL server's database taken under load, with the commands docs/operations.md
// "Backups" gives (pg_dump's custom format, pg_restore into a new database), restores to a database
// that holds every write acknowledged before the backup began, takes later migrations, and serves:
// its accounts' keys work, and a keyed write retried against it replays its kept answer.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { migrateDatabase } from '../../src/infrastructure/database/migrations/migrate-database';
import { createPrismaClient } from '../../src/infrastructure/database/driver/prisma-client';
import { expectKeptAnswersReplayed, missingCreations } from '../support/acknowledged-writes';
import { halfWrites } from '../support/consistency';
import { LATER_MIGRATION, migrationsWithALaterOne } from '../support/later-migration';
import { call, signUpThrough } from '../support/process-client';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { provisionTestDatabase } from '../support/test-database';
import { TEST_DATABASE_ENV, TEST_DATABASE_PREFIX, withAdminClient, withDatabase } from '../support/test-database-names';
import { anchorLane, clockLane, itemLane, journeyLane, WriteLoad } from '../support/write-load';

const run = promisify(execFile);
const QUIET = { LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '0', RATE_LIMIT_ACCOUNTS_PER_MINUTE: '0' };

jest.setTimeout(240_000);

describe('a backup taken under load with pg_dump', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('restores every acknowledged write, takes later migrations and serves', async () => {
    const source = await provisionTestDatabase();
    cleanups.push(() => source.close());
    const folder = await mkdtemp(join(tmpdir(), 'tns-backup-'));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    let service: ServiceProcess | undefined = await startServiceProcess({
      DATABASE_URL: source.connectionString,
      ...QUIET,
    });
    cleanups.push(() => service?.kill('SIGKILL') ?? Promise.resolve());
    const { url } = service;
    const accounts = [
      await signUpThrough(url, 'backup-a'),
      await signUpThrough(url, 'backup-b'),
      await signUpThrough(url, 'backup-c'),
    ];

    const load = new WriteLoad(() => url);
    const lanes = accounts.flatMap((account, n) => [
      anchorLane(load, account, `anchor-${n}`, 150),
      itemLane(load, account, `item-${n}`, 150),
      journeyLane(load, account, `journey-${n}`, 20),
      clockLane(load, account, `clock-${n}`, 30),
    ]);
    await load.acknowledged(200);
    // What was acknowledged before the backup began: the backup must hold all of it.
    const before = load.answered();
    const dump = join(folder, 'tns.dump');
    await run('pg_dump', ['--format=custom', `--file=${dump}`, source.connectionString]);
    const during = load.answered().length - before.length;
    await Promise.all(lanes);
    expect(load.refused()).toEqual([]);
    // Taken under load: writes were acknowledged while pg_dump ran.
    expect(during).toBeGreaterThan(0);
    expect(await service.stop()).toBe(0);
    service = undefined;

    const restoredUrl = await emptyDatabase(cleanups);
    await run('pg_restore', ['--no-owner', '--no-privileges', '--exit-on-error', `--dbname=${restoredUrl}`, dump]);

    // The next release's migration: the restored bookkeeping leaves every shipped one applied.
    const migrations = await migrationsWithALaterOne(folder);
    expect(await migrateDatabase(restoredUrl, { migrationsDir: migrations })).toEqual({ applied: [LATER_MIGRATION] });

    const restored = createPrismaClient(restoredUrl);
    cleanups.push(() => restored.$disconnect());
    expect(await missingCreations(restored, before)).toEqual({ anchors: [], items: [], travels: [], timelines: [] });
    expect(
      await halfWrites(
        restored,
        accounts.map((account) => account.id),
      ),
    ).toEqual([]);
    // Each anchor's event came with it.
    const anchorEvents = await restored.event.count({
      where: { accountId: { in: accounts.map((account) => account.id) }, kind: 'anchor_set' },
    });
    expect(anchorEvents).toBeGreaterThanOrEqual(before.filter((write) => write.kind === 'anchor').length);

    service = await startServiceProcess({ DATABASE_URL: restoredUrl, ...QUIET });
    expect((await call(service.url, 'GET', '/readyz')).status).toBe(200);
    for (const account of accounts) {
      expect((await call(service.url, 'GET', '/timelines', { auth: account.auth })).status).toBe(200);
      expect(
        (await call(service.url, 'POST', '/v1/anchors', { auth: account.auth, body: { description: 'Restored' } }))
          .status,
      ).toBe(201);
    }
    await expectKeptAnswersReplayed(service.url, before, accounts);
    expect(await service.stop()).toBe(0);
    service = undefined;
  });
});

/** A new, empty database on the test server, dropped after the test (and by the run's teardown). */
async function emptyDatabase(cleanups: (() => Promise<unknown>)[]): Promise<string> {
  const serverUrl = process.env.DATABASE_URL?.trim() ?? '';
  const name = `${TEST_DATABASE_PREFIX}${process.env[TEST_DATABASE_ENV.runId]}_${randomBytes(4).toString('hex')}`;
  await withAdminClient(serverUrl, (admin) => admin.query(`CREATE DATABASE "${name}"`));
  cleanups.push(() =>
    withAdminClient(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)),
  );
  return withDatabase(serverUrl, name);
}
