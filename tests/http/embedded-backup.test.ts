// A backup of the embedded database as docs/operations.md "Backups" takes it: the data folder
// copied while the service is stopped, then started from the copy somewhere else. The copy holds
// every acknowledged write, its keys work, its kept answers replay, and it takes later migrations.
// Its own data folders; on the embedded database whatever DATABASE_URL the run has.
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONNECTION_URL_FILE, EMBEDDED_POOL_SIZE } from '../../src/infrastructure/database/embedded/embedded-postgres';
import { migrateDatabase } from '../../src/infrastructure/database/migrations/migrate-database';
import { createPrismaClient } from '../../src/infrastructure/database/driver/prisma-client';
import { expectKeptAnswersReplayed, missingCreations } from '../support/acknowledged-writes';
import { halfWrites } from '../support/consistency';
import { LATER_MIGRATION, migrationsWithALaterOne } from '../support/later-migration';
import { call, signUpThrough } from '../support/process-client';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { anchorLane, itemLane, journeyLane, WriteLoad } from '../support/write-load';

const EMBEDDED = { DATABASE_URL: '', LOG_LEVEL: 'warn', RATE_LIMIT_PER_SECOND: '0' };

jest.setTimeout(240_000);

describe('a backup of the embedded database', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('is its data folder copied while stopped: the copy serves every acknowledged write', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'tns-embedded-backup-'));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    const original = join(folder, 'data');
    let service: ServiceProcess | undefined = await startServiceProcess({ ...EMBEDDED, DATA_DIR: original });
    cleanups.push(() => service?.kill('SIGKILL') ?? Promise.resolve());
    const accounts = [await signUpThrough(service.url, 'embedded-a'), await signUpThrough(service.url, 'embedded-b')];
    const url = service.url;
    const load = new WriteLoad(() => url);
    await Promise.all(
      accounts.flatMap((account, n) => [
        anchorLane(load, account, `anchor-${n}`, 40),
        itemLane(load, account, `item-${n}`, 40),
        journeyLane(load, account, `journey-${n}`, 5),
      ]),
    );
    expect(load.refused()).toEqual([]);
    expect(await service.stop()).toBe(0);

    // The backup, then the restore elsewhere: a copy of the folder, and of that copy.
    const backup = join(folder, 'backup');
    await cp(original, backup, { recursive: true });
    const restoredFolder = join(folder, 'restored');
    await cp(backup, restoredFolder, { recursive: true });
    service = await startServiceProcess({ ...EMBEDDED, DATA_DIR: restoredFolder });
    expect((await call(service.url, 'GET', '/readyz')).status).toBe(200);

    const databaseUrl = (await readFile(join(restoredFolder, CONNECTION_URL_FILE), 'utf8')).trim();
    const restored = createPrismaClient(databaseUrl, { maxConnections: EMBEDDED_POOL_SIZE });
    try {
      expect(await missingCreations(restored, load.answered())).toEqual({
        anchors: [],
        items: [],
        travels: [],
        timelines: [],
      });
      expect(
        await halfWrites(
          restored,
          accounts.map((account) => account.id),
        ),
      ).toEqual([]);
    } finally {
      await restored.$disconnect();
    }
    for (const account of accounts) {
      expect(
        (await call(service.url, 'POST', '/v1/anchors', { auth: account.auth, body: { description: 'Restored' } }))
          .status,
      ).toBe(201);
    }
    await expectKeptAnswersReplayed(service.url, load.answered(), accounts);

    // The next release's migration, through the restored database's own server.
    const migrations = await migrationsWithALaterOne(folder);
    expect(await migrateDatabase(databaseUrl, { migrationsDir: migrations })).toEqual({ applied: [LATER_MIGRATION] });
    expect(await service.stop()).toBe(0);
    service = undefined;
  });
});
