// The embedded database the service uses without DATABASE_URL: PGlite persisted in a directory.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { acquireDataDirLock, DataDirInUseError } from '../../../src/infrastructure/database/embedded/data-dir-lock';
import { waitFor } from '../../support/wait-for';
import {
  CONNECTION_URL_FILE,
  EMBEDDED_SETTINGS,
  startEmbeddedPostgres,
  startInMemoryPostgres,
} from '../../../src/infrastructure/database/embedded/embedded-postgres';
import { databaseFailureOf } from '../../../src/infrastructure/database/driver/database-failures';
import { openDatabase } from '../../../src/infrastructure/database/open-database';
import { createDatabaseClients } from '../../../src/infrastructure/database/driver/prisma-client';
import { loadPglite } from '../../../src/infrastructure/database/embedded/pglite-module';

// Starting PGlite (WebAssembly PostgreSQL) takes about two seconds; a migration run, a fraction. A
// test here starts it up to three times: 9 s alone, and past 30 s in a whole run of three workers on
// two cores on a slow day. A hang guard, not a measure of speed.
jest.setTimeout(90_000);

describe('embedded PostgreSQL', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'tns-embedded-'));
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps what was written through Prisma across a restart', async () => {
    const first = await openDatabase({ DATA_DIR: dataDir });
    try {
      expect(first.mode).toBe('embedded');
      expect(first.description).toContain(path.join(dataDir, 'pgdata'));
      await first.prisma.account.create({
        data: { id: 'acc-1', email: 'ada@example.com', passwordHash: 'x', createdAt: new Date('2030-01-01T00:00:00Z') },
      });
    } finally {
      await first.close();
    }

    const second = await openDatabase({ DATA_DIR: dataDir });
    try {
      const account = await second.prisma.account.findUnique({ where: { id: 'acc-1' } });
      expect(account?.email).toBe('ada@example.com');
      expect(account?.createdAt.toISOString()).toBe('2030-01-01T00:00:00.000Z');
    } finally {
      await second.close();
    }
  });

  it('runs with its memory settings, on a data folder made with PGlite defaults and in memory', async () => {
    // A folder made before the settings: its postgresql.conf says shared_buffers = 128MB.
    const pgdata = path.join(dataDir, 'pgdata');
    const { PGlite } = await loadPglite();
    const made = new PGlite(pgdata);
    await made.waitReady;
    await made.close();

    for (const start of [() => startEmbeddedPostgres({ dataDir: pgdata }), () => startInMemoryPostgres()]) {
      const server = await start();
      const client = new Client({ connectionString: server.connectionString });
      try {
        await client.connect();
        for (const [name, value] of Object.entries(EMBEDDED_SETTINGS)) {
          const { rows } = await client.query<Record<string, string>>(`SHOW ${name}`);
          expect(rows[0][name]).toBe(value);
        }
      } finally {
        await client.end();
        await server.stop();
      }
    }
  });

  it('announces its URL in connection-url while it runs, and removes it on stop', async () => {
    const server = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pgdata') });
    const urlFile = path.join(dataDir, CONNECTION_URL_FILE);
    try {
      expect((await readFile(urlFile, 'utf8')).trim()).toBe(server.connectionString);
    } finally {
      await server.stop();
    }
    expect(existsSync(urlFile)).toBe(false);
  });

  it('refuses a second start on the same data directory while the first runs', async () => {
    const pgdata = path.join(dataDir, 'pgdata');
    const server = await startEmbeddedPostgres({ dataDir: pgdata });
    try {
      await expect(startEmbeddedPostgres({ dataDir: pgdata })).rejects.toThrow(DataDirInUseError);
      await expect(startEmbeddedPostgres({ dataDir: pgdata })).rejects.toThrow(/already in use/);
    } finally {
      await server.stop();
    }
    // Stopped, the directory can be opened again.
    const again = await startEmbeddedPostgres({ dataDir: pgdata });
    await again.stop();
  });

  it("refuses a data directory locked by another live process, and takes over a dead one's lock", async () => {
    const pgdata = path.join(dataDir, 'pgdata');
    const other: ChildProcess = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      await writeFile(`${pgdata}.lock`, JSON.stringify({ pid: other.pid, host: hostname() }));
      await expect(startEmbeddedPostgres({ dataDir: pgdata })).rejects.toThrow(
        new RegExp(`already in use by process ${other.pid}`),
      );
    } finally {
      const exited = new Promise((resolve) => other.once('exit', resolve));
      other.kill();
      await exited;
    }

    // The same lock file, its owner now gone: a leftover of a crash, taken over and said so.
    const lock = await acquireDataDirLock(pgdata);
    expect(lock.tookOverFrom).toEqual({ pid: other.pid, host: hostname() });
    await lock.release();
    expect(existsSync(`${pgdata}.lock`)).toBe(false);
  });

  it('takes over a lock whose owner has ended but is not reaped yet (a zombie)', async () => {
    const pgdata = path.join(dataDir, 'pgdata');
    // The child ends a moment later, once its parent has become `sleep`, which never reaps it (a
    // child ending at once could be reaped by the shell before its exec).
    const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const [line] = (await once(parent.stdout, 'data')) as [Buffer];
      const zombie = Number(line.toString().trim());
      await waitFor(() => /\) Z /.test(readFileSync(`/proc/${zombie}/stat`, 'utf8')), { what: 'the zombie' });
      await writeFile(`${pgdata}.lock`, JSON.stringify({ pid: zombie, host: hostname() }));
      const lock = await acquireDataDirLock(pgdata);
      expect(lock.tookOverFrom).toEqual({ pid: zombie, host: hostname() });
      await lock.release();
    } finally {
      parent.kill('SIGKILL');
    }
  });

  // What a statement past DATABASE_TIMEOUT_MS gives on the embedded path (docs/decisions.md, "A
  // statement past its bound"): PGlite, in single-user mode, has no timer to cancel it.
  it('cancels no statement at statement_timeout: the pool finds the silence, an outage', async () => {
    const server = await startInMemoryPostgres();
    const clients = createDatabaseClients(server.connectionString, { maxConnections: 1, timeoutMs: 200 });
    const client = new Client({ connectionString: server.connectionString });
    try {
      await client.connect();
      await client.query('SET statement_timeout = 100');
      const { rows } = await client.query<{ slept: string }>('SELECT pg_sleep(0.4)::text AS slept');
      expect(rows).toEqual([{ slept: '' }]);
      await client.end();

      const failure = await clients.sql.query('SELECT pg_sleep(1)', []).catch((error: unknown) => error);
      expect([(failure as { code?: unknown }).code, databaseFailureOf(failure)]).toEqual(['ETIMEDOUT', 'unavailable']);
    } finally {
      await clients.prisma.$disconnect();
      await server.stop();
    }
  });
});
