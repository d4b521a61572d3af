// The dedicated listening connection when the network goes quiet rather than away: no error, no
// FIN, only silence. The heartbeat notices, the cache is suspended, and trusted again once a new
// connection listens. Runs on the test database (PostgreSQL with DATABASE_URL, else PGlite).
import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { keyChangeListener } from '../../../src/infrastructure/api-key-cache/key-change-listener';
import { LruVerifiedKeyCache } from '../../../src/infrastructure/api-key-cache/lru-verified-key-cache';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

jest.setTimeout(30_000);

/** A loopback proxy whose open connections can be frozen: nothing passes any more, nothing is closed. */
async function startFreezingProxy(target: URL): Promise<{ url: string; freeze(): void; close(): Promise<void> }> {
  const pairs: Array<[Socket, Socket]> = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
    pairs.push([client, upstream]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = new URL(target);
  url.host = `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url: url.toString(),
    freeze() {
      for (const [client, upstream] of pairs.splice(0)) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('KeyChangeListener on a silent network', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await provisionTestDatabase();
  });
  afterAll(() => database.close());

  it('drops a connection missing its heartbeat: suspended at once, trusted again once a new one listens', async () => {
    const proxy = await startFreezingProxy(new URL(database.connectionString));
    const cache = new LruVerifiedKeyCache({ maxEntries: 10, suspended: true });
    const listener = keyChangeListener(cache, { heartbeatMs: 200, heartbeatTimeoutMs: 1_000 });
    try {
      const subscribed = once(listener, 'subscribed');
      listener.start(proxy.url);
      const [firstPid] = (await subscribed) as [number];
      expect(listener.backendPid).toBe(firstPid);
      cache.remember(
        {
          id: 'key_1',
          accountId: 'acc_1',
          digest: 'digest-1',
          revokedAt: null,
          expiresAt: null,
          lastUsedAt: null,
          permissions: null,
        },
        cache.mark(),
      );
      expect(cache.stats()).toMatchObject({ entries: 1, suspended: false });

      const lost = once(listener, 'lost');
      const again = lost.then(() => once(listener, 'subscribed'));
      proxy.freeze();
      const [error] = (await lost) as [Error];
      expect(error.message).toMatch(/timeout/i);
      expect(cache.stats()).toMatchObject({ entries: 0, suspended: true });
      expect(listener.backendPid).toBeNull();

      const [secondPid] = (await again) as [number];
      expect(listener.backendPid).toBe(secondPid);
      expect(cache.stats().suspended).toBe(false);
    } finally {
      await listener.close();
      await proxy.close();
    }
  });
});
