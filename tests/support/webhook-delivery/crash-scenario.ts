// Webhook deliveries across kill -9 of every service process (docs/webhooks.md, "Delivering"): the
// real service delivers to a receiver on the loopback; the receiver stops answering, so that
// deliveries are in flight, and every process is killed; a fresh start then delivers everything.
// Each message must arrive at least once, with one webhook-id and one body, byte for byte, and
// only the messages in flight at the kill may arrive twice.
import { execFileSync } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { ENDPOINT_CONCURRENCY } from '../../../src/infrastructure/job-queue/queues';
import { call, signUpThrough } from '../process-client';
import { startServiceProcess, type ServiceProcess } from '../service-process';
import { waitFor } from '../wait-for';

/** Where the service's data is: what a process needs to use it, and the test's reads of it. */
export interface CrashStore {
  readonly env: Record<string, string>;
  /** Rows read while a service process runs (the embedded database is reached through it). */
  query<T>(text: string, params: readonly unknown[]): Promise<T[]>;
}

export interface CrashScenario {
  /** Service processes at once: WEB_CONCURRENCY. */
  readonly processes: number;
}

interface Received {
  readonly webhookId: string;
  readonly endpoint: string;
  readonly body: string;
  readonly headers: IncomingHttpHeaders;
}

/** A receiver answering 204 at once, or, while holding, taking each request and answering none. */
async function startReceiver() {
  const received: Received[] = [];
  const held: { readonly webhookId: string; readonly response: ServerResponse }[] = [];
  let holding = false;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const webhookId = String(request.headers['webhook-id']);
      received.push({
        webhookId,
        endpoint: request.url ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
        headers: request.headers,
      });
      if (holding) held.push({ webhookId, response });
      else response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    hold: () => (holding = true),
    answer: () => (holding = false),
    /** The held requests' webhook-ids: in flight, their attempts never answered. */
    heldIds: () => held.map((each) => each.webhookId),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const QUIET = { LOG_LEVEL: 'warn', RATE_LIMIT_PER_SECOND: '0', RATE_LIMIT_ACCOUNTS_PER_MINUTE: '0' };
const ENDPOINTS = ['/one', '/two'];
/** Anchors written while the receiver answers, then while it holds, then right before the kill. */
const [ANSWERED, HELD, UNSENT] = [4, 6, 3];

/** Kills the service's worker processes and its primary, each with SIGKILL, and waits until all are gone. */
async function killEveryProcess(service: ServiceProcess): Promise<void> {
  const children = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([, parent]) => parent === service.pid)
    .map(([pid]) => pid);
  for (const pid of children) process.kill(pid, 'SIGKILL');
  await service.kill('SIGKILL');
  await waitFor(() => children.every((pid) => !alive(pid)), { what: 'the workers gone' });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function deliveriesSurviveKill(store: CrashStore, scenario: CrashScenario): Promise<void> {
  const receiver = await startReceiver();
  const env = {
    ...store.env,
    ...QUIET,
    WEB_CONCURRENCY: String(scenario.processes),
    WEBHOOK_ALLOW_PRIVATE_URLS: 'on',
    WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1',
  };
  let service: ServiceProcess | undefined;
  try {
    service = await startServiceProcess(env);
    const url = service.url;
    const me = await signUpThrough(url, 'webhook-crash');
    const before = await store.query<{ id: string }>(`SELECT id FROM events WHERE account_id = $1`, [me.id]);
    const secrets = new Map<string, string>();
    for (const path of ENDPOINTS) {
      const created = await call(url, 'POST', '/v1/webhook-endpoints', {
        auth: me.auth,
        body: { url: `http://127.0.0.1:${receiver.port}${path}`, event_types: ['event.recorded'] },
      });
      expect(created.status).toBe(201);
      secrets.set(path, created.body.secret);
    }
    const anchors = async (count: number, name: string) => {
      for (let n = 0; n < count; n += 1) {
        const made = await call(url, 'POST', '/v1/anchors', { auth: me.auth, body: { description: `${name} ${n}` } });
        expect(made.status).toBe(201);
      }
    };

    await anchors(ANSWERED, 'Answered');
    // Delivered and recorded: no longer in flight.
    await waitFor(
      async () => {
        const [row] = await store.query<{ count: number }>(
          `SELECT count(*)::int AS count FROM webhook_messages WHERE account_id = $1 AND state = 'delivered'`,
          [me.id],
        );
        return row?.count === ANSWERED * ENDPOINTS.length;
      },
      { what: 'the first deliveries recorded', timeoutMs: 30_000, intervalMs: 200 },
    );
    receiver.hold();
    await anchors(HELD, 'Held');
    // Each endpoint's 4 attempts at once, taken and never answered: in flight; the rest wait.
    await waitFor(() => receiver.heldIds().length >= ENDPOINT_CONCURRENCY * ENDPOINTS.length, {
      what: 'deliveries in flight',
      timeoutMs: 30_000,
    });
    await anchors(UNSENT, 'Unsent');
    await killEveryProcess(service);
    // Every request held was taken before the kill, and never answered.
    const inFlight = new Set(receiver.heldIds());
    receiver.answer();

    service = await startServiceProcess(env);
    const messages = await waitFor(
      async () => {
        const rows = await store.query<{ id: string; endpoint: string; state: string; body: string; event: string }>(
          `SELECT m.id, e.url AS endpoint, m.state, m.body, m.subject ->> 'id' AS event
             FROM webhook_messages m JOIN webhook_endpoints e ON e.account_id = m.account_id AND e.id = m.endpoint_id
            WHERE m.account_id = $1`,
          [me.id],
        );
        const all = rows.length === ENDPOINTS.length * (ANSWERED + HELD + UNSENT);
        return all && rows.every((row) => row.state === 'delivered') ? rows : undefined;
      },
      { what: 'every message delivered after the start', timeoutMs: 90_000, intervalMs: 500 },
    );

    // Every event written since the endpoints were made has its message at each, each delivered.
    const events = await store.query<{ id: string }>(`SELECT id FROM events WHERE account_id = $1`, [me.id]);
    const written = events.map((event) => event.id).filter((id) => !before.some((old) => old.id === id));
    expect(written).toHaveLength(ANSWERED + HELD + UNSENT);
    const expected = ENDPOINTS.flatMap((path) => written.map((event) => `${path} ${event}`)).sort();
    const pathOf = (endpointUrl: string) => new URL(endpointUrl).pathname;
    expect(messages.map((message) => `${pathOf(message.endpoint)} ${message.event}`).sort()).toEqual(expected);

    const byId = new Map(messages.map((message) => [message.id, message]));
    for (const each of receiver.received) {
      const message = byId.get(each.webhookId);
      // One webhook-id for every attempt of a message, its body byte for byte the one kept, signed.
      expect(message && [pathOf(message.endpoint), message.body]).toEqual([each.endpoint, each.body]);
      const signature = {
        'webhook-id': each.webhookId,
        'webhook-timestamp': String(each.headers['webhook-timestamp']),
        'webhook-signature': String(each.headers['webhook-signature']),
      };
      expect(() => new Webhook(secrets.get(each.endpoint) ?? '').verify(each.body, signature)).not.toThrow();
    }
    // Each message arrived once, but those in flight at the kill, which arrived again after it.
    const counts = new Map<string, number>();
    for (const each of receiver.received) counts.set(each.webhookId, (counts.get(each.webhookId) ?? 0) + 1);
    expect(inFlight.size).toBeGreaterThanOrEqual(ENDPOINT_CONCURRENCY * ENDPOINTS.length);
    expect(messages.map((message) => [message.id, counts.get(message.id)])).toEqual(
      messages.map((message) => [message.id, inFlight.has(message.id) ? 2 : 1]),
    );
    expect(await service.stop()).toBe(0);
  } finally {
    await service?.kill('SIGKILL');
    await receiver.close();
  }
}
