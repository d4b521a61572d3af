// Behind PgBouncer in transaction pooling mode (docs/operations.md, "Behind a connection pooler"):
// Debian's pgbouncer, configured by the deployment's own deploy/pgbouncer files, in front of a new
// database, and two instances of the service started together behind it (one of two worker
// processes, one of a single process), each with DATABASE_DIRECT_URL naming the server itself.
// The database's own time zone is not UTC, so an instant shifted anywhere on the way would show.
import { randomBytes, randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from 'pg';
import { databaseFailureOf } from '../../src/infrastructure/database/driver/database-failures';
import { createDatabaseClients } from '../../src/infrastructure/database/driver/prisma-client';
import { openStream } from '../support/http/event-stream-client';
import { call, signUpThrough, type Answer } from '../support/process-client';
import { startPgBouncer, type PgBouncer } from '../support/pooler/pgbouncer';
import { runServiceToExit, startServiceProcess, type ServiceProcess } from '../support/service-process';
import { TEST_DATABASE_ENV, TEST_DATABASE_PREFIX, withAdminClient, withDatabase } from '../support/test-database-names';
import { waitFor } from '../support/wait-for';

const SERVER_URL = process.env.DATABASE_URL ?? '';
const MIGRATIONS = join(__dirname, '../../prisma/migrations');
/** UTC+14: a stored instant read back in the session's zone instead of UTC would be half a day off. */
const DATABASE_TIME_ZONE = 'Pacific/Kiritimati';

let database: string;
let directUrl: string;
let pooler: PgBouncer;
let instances: ServiceProcess[];
/** Each instance by its URL, for requests spread over them in turn. */
let urls: string[];

beforeAll(async () => {
  // A database of its own, unmigrated: the instances migrate it as they start.
  const runId = process.env[TEST_DATABASE_ENV.runId] ?? 'x';
  database = `${TEST_DATABASE_PREFIX}${runId}_pooler_${randomBytes(4).toString('hex')}`;
  await withAdminClient(SERVER_URL, async (admin) => {
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.query(`ALTER DATABASE ${database} SET timezone TO '${DATABASE_TIME_ZONE}'`);
  });
  directUrl = withDatabase(SERVER_URL, database);
  pooler = await startPgBouncer({
    serverUrl: SERVER_URL,
    database,
    user: new URL(SERVER_URL).username || 'postgres',
    password: randomBytes(12).toString('hex'),
  });
  const behindPooler = {
    DATABASE_URL: pooler.url,
    DATABASE_DIRECT_URL: directUrl,
    SERVICE_REPLICAS: '2',
    LOG_LEVEL: 'info',
    RATE_LIMIT_PER_SECOND: '0',
    RATE_LIMIT_ACCOUNTS_PER_MINUTE: '0',
  };
  instances = await Promise.all([
    startServiceProcess({ ...behindPooler, WEB_CONCURRENCY: '2' }),
    startServiceProcess({ ...behindPooler, WEB_CONCURRENCY: '1' }),
  ]);
  urls = instances.map((instance) => instance.url);
}, 180_000);

afterAll(async () => {
  await Promise.all((instances ?? []).map((instance) => instance.kill('SIGKILL')));
  await pooler?.stop();
  if (database)
    await withAdminClient(SERVER_URL, (admin) => admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
});

/** A short connection of the test's own to the new database on the server itself. */
const onServer = <T>(work: (client: Client) => Promise<T>): Promise<T> => withAdminClient(directUrl, work);

/** The `n`th request goes to instance n mod 2: every step below is served by both in turn. */
const on = (n: number) => urls[n % urls.length];

it('applies the migrations once when two instances start together, and states the connection budget', async () => {
  const onDisk = (await readdir(MIGRATIONS, { withFileTypes: true })).filter((entry) => entry.isDirectory());
  const applied = await onServer(
    async (client) =>
      (
        await client.query<{ migration_name: string; finished: boolean; rolled_back: boolean; steps: number }>(
          `SELECT migration_name, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back,
                applied_steps_count AS steps FROM _prisma_migrations ORDER BY migration_name`,
        )
      ).rows,
  );
  expect(applied.map((row) => row.migration_name)).toEqual(onDisk.map((entry) => entry.name).sort());
  expect(applied.every((row) => row.finished && !row.rolled_back && row.steps === 1)).toBe(true);
  // Each counts SERVICE_REPLICAS instances like itself: the pooler's 20, 2 × its processes × 2
  // listening, and 2 × 1 while migrating.
  await instances[0].printed(/Database connections: up to 30 of the \d+ PostgreSQL allows/);
  await instances[1].printed(/Database connections: up to 26 of the \d+ PostgreSQL allows/);
});

it("serves every family's operations through the pooler, with instants as sent", async () => {
  const me = await signUpThrough(on(0), 'pooled');
  const send = async (n: number, method: string, path: string, body?: unknown): Promise<Answer> => {
    const answer = await call(on(n), method, path, { auth: me.auth, body });
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer;
  };
  const anchor = await send(0, 'POST', '/v1/set-anchor', { timestamp: '2030-01-01T00:00:00Z', description: 'Home' });
  const timeline = await send(1, 'POST', '/v1/timelines', { name: 'Rome', destination_time: '0044-03-15T08:00:00Z' });
  const timelineId = timeline.body.id as string;
  expect((await send(0, 'POST', '/v1/travels', { destination: timelineId })).body).toMatchObject({
    timeline_id: timelineId,
    current_time: '0044-03-15T08:00:00Z',
  });
  await send(1, 'POST', '/v1/pause-time');
  const travel = await send(0, 'POST', '/api/v1/travel', {
    destination_time: '0044-03-15T11:00:00Z',
    location: 'Theatre of Pompey',
  });
  expect(travel.body).toMatchObject({ current_time: '0044-03-15T11:00:00Z', timeline_id: timelineId });
  expect((await send(1, 'POST', '/v1/fast-forward', { duration: '1m' })).body.new_time).toBe('0044-03-15T11:01:00Z');
  expect((await send(0, 'POST', '/v1/rewind', { duration: '1m' })).body.new_time).toBe('0044-03-15T11:00:00Z');
  const item = await send(
    1,
    'GET',
    `/v1/retrieve-item?${new URLSearchParams({
      item_description: 'Senator toga',
      location: 'Theatre of Pompey',
      time: '0044-03-15T11:00:00Z',
    })}`,
  );
  const range = '0001-01-01T00:00:00Z/9999-12-31T23:59:59Z';
  const scanned = await send(0, 'POST', '/api/v1/scan-events', { location: 'Theatre of Pompey', time_range: range });
  const monitored = await send(
    1,
    'GET',
    `/v1/monitor-events?${new URLSearchParams({
      location: 'Theatre of Pompey',
      time_range: range,
    })}`,
  );
  expect(scanned.body.events.length).toBeGreaterThan(0);
  expect(monitored.body.events.map((event: { event_id: string }) => event.event_id)).toEqual(
    scanned.body.events.map((event: { event_id: string }) => event.event_id),
  );
  expect((await send(0, 'GET', `/timeline/${timelineId}`)).body).toMatchObject({ id: timelineId, name: 'Rome' });
  const check = await send(1, 'POST', '/v1/paradox-checks', { timeline_id: timelineId, proposed_changes: [] });
  expect(check.body).toMatchObject({ timeline_id: timelineId });
  const home = await send(0, 'POST', '/v1/travels', {
    destination: anchor.body.anchor_id,
    items_transported: [item.body.item_id],
  });
  expect(home.body).toMatchObject({ timeline_id: 'primary', current_time: '2030-01-01T00:00:00Z' });
  // And as stored: the instant itself, whatever zone a session reads it in.
  const stored = await onServer(async (client) => {
    await client.query("SET TIME ZONE 'UTC'");
    const { rows } = await client.query<{ at: string }>(
      `SELECT to_char("timestamp", 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS at FROM anchors WHERE account_id = $1 AND id = $2`,
      [me.id, anchor.body.anchor_id],
    );
    return rows[0]?.at;
  });
  expect(stored).toBe('2030-01-01T00:00:00Z');
}, 60_000);

it('keeps concurrent fast-forwards from every process exact', async () => {
  const me = await signUpThrough(on(1), 'racing');
  const start = await call(on(0), 'POST', '/v1/pause-time', { auth: me.auth });
  expect(start.status).toBe(200);
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, n) =>
      call(on(n), 'POST', '/v1/fast-forward', { auth: me.auth, body: { duration: '1m' } }),
    ),
  );
  expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
  const times = answers.map((answer) => Date.parse(answer.body.new_time as string)).sort((x, y) => x - y);
  const paused = Date.parse(start.body.paused_at as string);
  // Each answer a different minute: none lost, none applied twice.
  expect(times).toEqual(Array.from({ length: 40 }, (_, n) => paused + (n + 1) * 60_000));
}, 60_000);

it('replays an Idempotency-Key on every instance, writing once', async () => {
  const me = await signUpThrough(on(0), 'keyed');
  const idempotencyKey = randomUUID();
  const body = { timestamp: '1969-07-20T20:17:40Z', description: 'Landing' };
  const answers = [];
  for (let n = 0; n < 4; n += 1)
    answers.push(await call(on(n), 'POST', '/v1/anchors', { auth: me.auth, body, idempotencyKey }));
  expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 201]);
  expect(new Set(answers.map((answer) => answer.body.id as string)).size).toBe(1);
  expect(answers.slice(1).every((answer) => answer.headers['idempotent-replayed'] === 'true')).toBe(true);
  const stored = await onServer((client) =>
    client.query("SELECT 1 FROM anchors WHERE account_id = $1 AND description = 'Landing'", [me.id]),
  );
  expect(stored.rowCount).toBe(1);
});

it('hears a revocation in every process, on the connections that bypass the pooler', async () => {
  const me = await signUpThrough(on(0), 'revoked');
  const anchorWith = (n: number) =>
    call(on(n), 'POST', '/v1/anchors', { auth: me.auth, body: { description: `a${n}` } });
  // Eight requests on new connections: each worker of the two-process instance, and the single
  // process, verifies the key and remembers it.
  const warm = await Promise.all(Array.from({ length: 8 }, (_, n) => anchorWith(n)));
  expect(warm.map((answer) => answer.status)).toEqual(warm.map(() => 201));
  const keyId = await onServer(async (client) => {
    const { rows } = await client.query<{ id: string }>('SELECT id FROM api_keys WHERE account_id = $1', [me.id]);
    return rows[0].id;
  });
  // Revoked without the trigger (this session only): no process hears of it, so each still answers
  // from memory. The control: the cache is on behind the pooler, and a 401 below is what it heard.
  await onServer(async (client) => {
    await client.query('SET session_replication_role = replica');
    await client.query("UPDATE api_keys SET revoked_at = now() - interval '1 second' WHERE id = $1", [keyId]);
  });
  const remembered = await Promise.all(Array.from({ length: 8 }, (_, n) => anchorWith(n)));
  expect(remembered.map((answer) => answer.status)).toEqual(remembered.map(() => 201));
  // Now as every path revokes: the trigger announces it to every process's listening connection.
  await onServer((client) => client.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [keyId]));
  // Eight at once, as above, so that every worker must refuse it, not only the first to hear.
  await waitFor(
    async () =>
      (await Promise.all(Array.from({ length: 8 }, (_, n) => anchorWith(n)))).every((answer) => answer.status === 401),
    { what: 'every process of both instances to refuse the revoked key', timeoutMs: 3_000 },
  );
});

it('hears a change of permissions in every process, behind the pooler as a revocation', async () => {
  const me = await signUpThrough(on(0), 'narrowed');
  const created = await call(on(1), 'POST', '/v1/api-keys', {
    auth: me.auth,
    body: { name: 'widget', permissions: { anchors: 'write' } },
  });
  expect(created.status).toBe(201);
  const restricted = `Bearer ${created.body.api_key}`;
  const anchorWith = (n: number) =>
    call(on(n), 'POST', '/v1/anchors', { auth: restricted, body: { description: `a${n}` } });
  // Every worker of both instances verifies the key and remembers it with its permissions.
  const warm = await Promise.all(Array.from({ length: 8 }, (_, n) => anchorWith(n)));
  expect(warm.map((answer) => answer.status)).toEqual(warm.map(() => 201));

  const changed = await call(on(0), 'PATCH', `/v1/api-keys/${created.body.id}`, {
    auth: me.auth,
    body: { permissions: { anchors: 'read' } },
  });
  expect(changed.status).toBe(200);
  await waitFor(
    async () =>
      (await Promise.all(Array.from({ length: 8 }, (_, n) => anchorWith(n)))).every((answer) => answer.status === 403),
    { what: 'every process of both instances to refuse the key its permission', timeoutMs: 3_000 },
  );
});

it('delivers a write on one instance to an event stream on the other, heard on the direct connection', async () => {
  const me = await signUpThrough(on(0), 'watching');
  expect((await call(on(0), 'POST', '/v1/pause-time', { auth: me.auth })).status).toBe(200);
  const query = new URLSearchParams({
    location: 'Observatory',
    time_range: '1600-01-01T00:00:00Z/1700-01-01T00:00:00Z',
  });
  const stream = openStream(`${on(1)}/v1/monitor-events?${query}`, me.auth);
  try {
    expect((await stream.waitFor(1))[0]?.type).toBe('caught-up');
    const write = await call(on(0), 'POST', '/api/v1/travel', {
      auth: me.auth,
      body: { destination_time: '1650-01-01T00:00:00Z', location: 'Observatory' },
    });
    expect(write.status).toBe(200);
    // Well within the 10 s every stream is woken anyway: the change was heard, not swept up.
    const [, recorded] = await stream.waitFor(2, 3_000);
    expect(recorded).toMatchObject({
      type: 'recorded',
      data: { time: '1650-01-01T00:00:00Z', location: 'Observatory' },
    });
  } finally {
    stream.close();
  }
});

it('stops a start behind a pooler that does not know its database, saying so, one process or a cluster', async () => {
  const unknown = new URL(pooler.url);
  unknown.pathname = '/not_configured';
  const starts = await Promise.all(
    ['1', '2'].map((workers) =>
      runServiceToExit({
        DATABASE_URL: unknown.toString(),
        DATABASE_DIRECT_URL: directUrl,
        SERVICE_REPLICAS: '2',
        WEB_CONCURRENCY: workers,
      }),
    ),
  );
  for (const { code, output } of starts) {
    expect(code).toBe(1);
    expect(output).toContain(
      `The connection pooler at ${unknown.host}/not_configured (DATABASE_URL) refuses the service: ` +
        'no such database: not_configured.',
    );
    // Before any worker: none is forked to fail and be replaced.
    expect(output).not.toContain('worker started');
  }
  // What each request would have met: a fault of the configuration, not an outage to wait out.
  const clients = createDatabaseClients(unknown.toString(), { maxConnections: 1 });
  try {
    const refusals = [
      await clients.prisma.$queryRaw`SELECT 1`.catch((error: unknown) => error),
      await clients.prisma.account.findFirst().catch((error: unknown) => error),
      await clients.sql.query('SELECT 1', []).catch((error: unknown) => error),
    ];
    expect(refusals.map((error) => [String(error).includes('no such database'), databaseFailureOf(error)])).toEqual([
      [true, null],
      [true, null],
      [true, null],
    ]);
  } finally {
    await clients.prisma.$disconnect();
  }
}, 60_000);

it('sends requests through the pooler: without it they are refused with 503, and the server is untouched', async () => {
  const me = await signUpThrough(on(1), 'outage');
  await pooler.stop();
  const answer = await call(on(0), 'POST', '/v1/anchors', { auth: me.auth, body: { description: 'lost' } });
  expect(answer.status).toBe(503);
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  const stored = await onServer((client) =>
    client.query("SELECT 1 FROM anchors WHERE account_id = $1 AND description = 'lost'", [me.id]),
  );
  expect(stored.rowCount).toBe(0);
}, 30_000);
