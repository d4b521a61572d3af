// The embedded database on a disk that fills up, as a new user's laptop might: the service keeps
// answering (503 with Retry-After for what needs the database, /healthz 200, /readyz saying why),
// logs the condition once, comes back by itself once there is room, keeps every write it
// acknowledged, and still stops on SIGTERM while PGlite is stuck. Needs root, to mount a small
// tmpfs; without root it is skipped, saying so.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { measuringLag } from '../support/scheduling-lag';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { asRoot } from '../support/as-root';
import { waitFor } from '../support/wait-for';

jest.setTimeout(180_000);

const DISK_MIB = 96;
const TIMEOUT_MS = 2000;
/**
 * What a write may take to be answered while the database is stuck: the bound, and a second; plus
 * how late the machine ran this process's timers meanwhile (measuringLag).
 */
const ANSWER_WITHIN_MS = TIMEOUT_MS + 1000;
const STOPPED_ANSWERING = 'the embedded database stopped answering';

/** Leaves `leftBytes` free on the file system of `folder`, with one file that takes the rest. */
async function fill(folder: string, leftBytes: number): Promise<string> {
  const stats = await statfs(folder);
  const filler = path.join(folder, `filler-${Date.now()}`);
  const taken = spawnSync('fallocate', ['-l', String(stats.bavail * stats.bsize - leftBytes), filler]);
  expect(taken.status).toBe(0);
  return filler;
}

/**
 * Makes the write-ahead log need its next segment, as a stream of writes does once it has filled
 * one (16 MiB of them, which would take minutes of requests): the next write needs a new file.
 */
async function switchWal(dataDir: string): Promise<void> {
  const client = new Client({
    connectionString: (await readFile(path.join(dataDir, 'connection-url'), 'utf8')).trim(),
  });
  await client.connect();
  try {
    await client.query('SELECT pg_switch_wal()');
  } finally {
    await client.end();
  }
}

describe('the embedded database on a full disk', () => {
  let mountPoint: string;
  let mounted = false;
  let service: ServiceProcess | undefined;
  beforeAll(async () => {
    mountPoint = await mkdtemp(path.join(tmpdir(), 'tns-full-disk-'));
  });
  afterAll(async () => {
    await service?.kill('SIGKILL');
    if (mounted) spawnSync('umount', [mountPoint]);
    await rm(mountPoint, { recursive: true, force: true });
  });

  asRoot('answers 503 meanwhile, says why, recovers with every write kept, and stops (needs root)', async () => {
    const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${DISK_MIB}m`, 'tmpfs', mountPoint]);
    expect(mount.status).toBe(0);
    mounted = true;
    const dataDir = path.join(mountPoint, 'data');
    service = await startServiceProcess({
      DATABASE_URL: '',
      DATA_DIR: dataDir,
      DATABASE_TIMEOUT_MS: String(TIMEOUT_MS),
      SHUTDOWN_GRACE_MS: '1000',
    });
    const api = request(service.url);
    const signUp = await api
      .post('/v1/accounts')
      .send({ email: 'full@example.com', password: 'correct horse battery' });
    expect(signUp.status).toBe(201);
    const auth = `Bearer ${signUp.body.api_key}`;
    const anchor = (description: string) =>
      api.post('/v1/anchors').set('Authorization', auth).set('Idempotency-Key', description).send({ description });
    for (let i = 0; i < 20; i += 1) expect((await anchor(`before-${i}`)).status).toBe(201);

    const filler = await fill(mountPoint, 2 * 1024 * 1024);
    await switchWal(dataDir);
    for (let i = 0; i < 4; i += 1) {
      const started = Date.now();
      const { result: refused, lagMs } = await measuringLag(() => anchor(`during-${i}`));
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBeDefined();
      expect(Date.now() - started).toBeLessThan(ANSWER_WITHIN_MS + lagMs);
    }
    expect((await api.get('/healthz')).status).toBe(200);
    const notReady = await waitFor(
      async () => {
        const readyz = await api.get('/readyz');
        return readyz.status === 503 && /disk/.test(readyz.body.reason) ? readyz : undefined;
      },
      { what: '/readyz saying the disk is full', timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(notReady.headers['retry-after']).toBeDefined();

    // Room again: the service comes back by itself, and the refused writes, sent again, act once.
    await rm(filler);
    await waitFor(async () => (await api.get('/readyz')).status === 200, {
      what: '/readyz ready again',
      timeoutMs: 20_000,
      intervalMs: 200,
    });
    for (let i = 0; i < 4; i += 1) expect((await anchor(`during-${i}`)).status).toBe(201);
    const client = new Client({
      connectionString: (await readFile(path.join(dataDir, 'connection-url'), 'utf8')).trim(),
    });
    await client.connect();
    const kept = await client
      .query<{ description: string; copies: number }>(
        'SELECT description, count(*)::int AS copies FROM anchors GROUP BY description ORDER BY description',
      )
      .finally(() => client.end());
    const expected = [
      ...Array.from({ length: 20 }, (_, i) => `before-${i}`),
      ...Array.from({ length: 4 }, (_, i) => `during-${i}`),
    ].sort();
    expect(kept.rows).toEqual(expected.map((description) => ({ description, copies: 1 })));
    // The log is written in blocks: waited for rather than read at once.
    const output = await service.printed('the embedded database answers again');
    expect(output.split(STOPPED_ANSWERING)).toHaveLength(2);

    // Stuck again, then stopped: SIGTERM ends the process though PGlite never returns.
    // After a restart the log may have spare segments to recycle: switched until one is missing.
    const again = await fill(mountPoint, 2 * 1024 * 1024);
    const statuses: number[] = [];
    for (let i = 0; i < 8 && !statuses.includes(503); i += 1) {
      await switchWal(dataDir);
      statuses.push((await anchor(`stuck-${i}`)).status);
    }
    expect(statuses).toContain(503);
    await service.printed(new RegExp(`${STOPPED_ANSWERING}[\\s\\S]*${STOPPED_ANSWERING}`));
    const started = Date.now();
    const code = await service.stop();
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    await rm(again);
  });
});
