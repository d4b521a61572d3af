// Where a delivery may go, from end to end, with WEBHOOK_ALLOW_PRIVATE_URLS off: an endpoint
// registered while its name led to a public address, whose name then leads to the loopback (DNS
// rebinding), and endpoints at private addresses stored as the setting on would have let them (a
// service started again with it off), each get an attempt recorded `address_not_allowed`, and
// nothing reaches the receivers listening where they lead. Refusals at registration are
// webhook-endpoints.test.ts's. On PostgreSQL (DATABASE_URL) and on the embedded PGlite.
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { buildContainer } from '../../../src/composition/container';
import type { ProcessJobQueue } from '../../../src/composition/job-queue';
import { ResolvedWebhookDestinations } from '../../../src/infrastructure/webhook-delivery/resolved-destinations';
import { startTestApp, type TestApp } from '../../support/http/test-app';
import { startInProcessQueue } from '../../support/webhook-delivery/in-process-queue';
import { type LoopbackOnly, loopbackOnly } from '../../support/webhook-delivery/loopback-only';
import { resolverTable } from '../../support/webhook-delivery/resolver-table';
import { waitFor } from '../../support/wait-for';

jest.setTimeout(60_000);

const NAME = 'rebind.example.test';
/** What the injected resolver answers, changed by the test as a DNS record would be. */
const dns: Record<string, readonly string[]> = { [NAME]: ['93.184.215.14'] };

/** A TCP listener counting the connections that reach it: nothing must, not even a handshake. */
interface CountingListener {
  readonly port: number;
  connections: number;
  readonly server: Server;
}

async function countingListener(host: string): Promise<CountingListener> {
  const listener = { port: 0, connections: 0, server: createServer((socket) => socket.destroy()) };
  listener.server.on('connection', () => (listener.connections += 1));
  await new Promise<void>((resolve) => listener.server.listen(0, host, resolve));
  listener.port = (listener.server.address() as AddressInfo).port;
  return listener;
}

let t: TestApp;
let queue: ProcessJobQueue;
let guard: LoopbackOnly;
let v4: CountingListener;
let v6: CountingListener;

beforeAll(async () => {
  guard = loopbackOnly();
  v4 = await countingListener('127.0.0.1');
  v6 = await countingListener('::1');
  const destinations = new ResolvedWebhookDestinations(false, resolverTable(dns));
  t = await startTestApp({ webhookDestinations: destinations });
  const container = buildContainer({ prisma: t.prisma, sql: t.sql, webhookDestinations: destinations });
  queue = await startInProcessQueue(t, container);
});
afterAll(async () => {
  await queue?.stop();
  await t?.close();
  for (const listener of [v4, v6]) await new Promise((resolve) => listener?.server.close(resolve));
  guard?.restore();
});

it('refuses at delivery a name that now leads to the loopback, and private addresses, sending nothing', async () => {
  const me = await t.signUp();
  const created = await request(t.app)
    .post('/v1/webhook-endpoints')
    .set('Authorization', me.auth)
    .send({ url: `https://${NAME}:${v4.port}/hooks`, event_types: ['event.recorded'] });
  expect(created.status).toBe(201);
  // The record changes after the check at registration: the name now leads to where the receiver listens.
  dns[NAME] = ['127.0.0.1'];
  const stored = [
    `https://127.0.0.1:${v4.port}/`,
    'https://10.0.0.1/',
    'https://169.254.169.254/',
    `https://[::1]:${v6.port}/`,
  ];
  for (const [n, url] of stored.entries())
    await t.sql.query(
      `INSERT INTO webhook_endpoints (account_id, id, url, event_types, status, secret, created_at)
       VALUES ($1, $2, $3, '{event.recorded}', 'enabled', $4, now())`,
      [me.id, `whk_private${n}`, url, `whsec_${Buffer.from(`secret ${n}`.padEnd(32)).toString('base64')}`],
    );

  const anchor = await request(t.app).post('/v1/anchors').set('Authorization', me.auth).send({ description: 'Hi' });
  expect(anchor.status).toBe(201);

  const attempts = await waitFor(
    async () => {
      const rows = await t.sql.query<{ url: string; status: number | null; error: string | null }>(
        `SELECT e.url, a.status, a.error FROM webhook_attempts a
           JOIN webhook_endpoints e ON e.account_id = a.account_id AND e.id = a.endpoint_id
          WHERE a.account_id = $1 ORDER BY e.url`,
        [me.id],
      );
      return rows.length === 5 ? rows : undefined;
    },
    { what: "each endpoint's first attempt", timeoutMs: 20_000 },
  );
  expect(attempts).toEqual(
    [created.body.url, ...stored].sort().map((url) => ({ url, status: null, error: 'address_not_allowed' })),
  );
  expect([v4.connections, v6.connections]).toEqual([0, 0]);
  expect(guard.strayed).toEqual([]);
  // Each refusal is a failed attempt like any other: its message waits for its retry.
  const messages = await t.sql.query<{ state: string; attempts: number }>(
    `SELECT state, attempts FROM webhook_messages WHERE account_id = $1`,
    [me.id],
  );
  expect(messages).toEqual(Array.from({ length: 5 }, () => ({ state: 'pending', attempts: 1 })));
});
