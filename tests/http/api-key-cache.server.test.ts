// Two service instances on one PostgreSQL database, each with its own pool and its own cache of
// verified keys, as two processes would be: whatever stops a key on A (revoke, roll, sign-out, an
// operator's SQL), or takes a permission from it, is refused by B on its next request once B has heard the database's
// notification, and B trusts no remembered key while its listening connection is lost.
// Needs DATABASE_URL: the embedded PGlite serves one process only (jest.config.js collects
// `*.server.test.ts` only then).
import { once } from 'node:events';
import request from 'supertest';
import { EVERY_KEY } from '../../src/infrastructure/api-key-cache/key-change-listener';
import { aBrowser, freshKeyOf } from '../support/http/browser';
import { startTestApp, type TestApp } from '../support/http/test-app';

/** Waits until the app has heard (and forgotten) a change of the key: the notification, never a sleep. */
function heardBy(t: TestApp, keyId: string): Promise<void> {
  const listener = t.keyCaching.listener;
  if (!listener) throw new Error('the app does not cache keys');
  return new Promise((resolve, reject) => {
    const onChange = (changed: string): void => {
      if (changed !== keyId && changed !== EVERY_KEY) return;
      clearTimeout(timer);
      listener.off('heard', onChange);
      resolve();
    };
    const timer = setTimeout(() => {
      listener.off('heard', onChange);
      reject(new Error(`no notification of a change of ${keyId} within 5 s`));
    }, 5_000);
    listener.on('heard', onChange);
  });
}

/** A promise the test resolves when it chooses: here, when B may reconnect its listener. */
function aGate(): { readonly passed: Promise<void>; open(): void } {
  let open: () => void = () => undefined;
  const passed = new Promise<void>((resolve) => (open = resolve));
  return { passed, open };
}

describe('verified API keys cached by two processes on one database', () => {
  let a: TestApp;
  let b: TestApp;
  let reconnectGate: ReturnType<typeof aGate> | null = null;

  beforeAll(async () => {
    a = await startTestApp();
    b = await startTestApp({
      sharing: a,
      keyChanges: { pauseBeforeReconnect: () => reconnectGate?.passed ?? Promise.resolve() },
    });
  });
  afterAll(async () => {
    reconnectGate?.open();
    await b?.close();
    await a?.close();
  });

  const anchorOn = (t: TestApp, key: string) =>
    request(t.app).post('/v1/anchors').set('Authorization', `Bearer ${key}`).send({ description: 'Home' });
  const idOf = async (key: string) =>
    (await a.prisma.apiKey.findFirstOrThrow({ where: { prefix: key.slice(0, 12) } })).id;

  /** An account opened in A's dashboard, its first key, and that key used on B until B answers it from memory. */
  async function aKeyCachedByB() {
    const browser = aBrowser(a);
    const key = freshKeyOf((await browser.signUp()).text);
    expect((await anchorOn(b, key)).status).toBe(201);
    const hits = b.keyCaching.cache.stats().hits;
    expect((await anchorOn(b, key)).status).toBe(201);
    expect(b.keyCaching.cache.stats().hits).toBe(hits + 1);
    return { browser, key, id: await idOf(key) };
  }

  it('a key revoked on A is refused by B on its next request', async () => {
    const { browser, key, id } = await aKeyCachedByB();
    const heard = heardBy(b, id);
    expect((await browser.submit(`/dashboard/keys/${id}/revoke`)).status).toBe(200);
    await heard;
    expect((await anchorOn(b, key)).status).toBe(401);
    expect((await anchorOn(a, key)).status).toBe(401);
  });

  it('a key rolled on A is refused by B, and its replacement accepted', async () => {
    const { browser, key, id } = await aKeyCachedByB();
    const heard = heardBy(b, id);
    const replacement = freshKeyOf((await browser.submit(`/dashboard/keys/${id}/roll`)).text);
    await heard;
    expect((await anchorOn(b, key)).status).toBe(401);
    expect((await anchorOn(b, replacement)).status).toBe(201);
  });

  it("a session's console key is refused by B once the session signs out on A", async () => {
    const browser = aBrowser(a);
    await browser.signUp();
    const consoleKey = /"apiKey":"(tns_[A-Za-z0-9_-]{43})"/.exec((await browser.get('/docs')).text)?.[1] ?? '';
    expect((await anchorOn(b, consoleKey)).status).toBe(201);
    expect((await anchorOn(b, consoleKey)).status).toBe(201);
    const heard = heardBy(b, await idOf(consoleKey));
    expect((await browser.submit('/logout')).status).toBe(303);
    await heard;
    expect((await anchorOn(b, consoleKey)).status).toBe(401);
  });

  it('a permission taken from a restricted key by PATCH on A is refused by A and B on their next request', async () => {
    const { key: fullKey } = await aKeyCachedByB();
    const created = await request(a.app)
      .post('/v1/api-keys')
      .set('Authorization', `Bearer ${fullKey}`)
      .send({ name: 'widget', permissions: { anchors: 'write' } });
    const restricted: string = created.body.api_key;
    for (const t of [a, b, b]) expect((await anchorOn(t, restricted)).status).toBe(201);

    const heard = heardBy(b, created.body.id);
    const changed = await request(a.app)
      .patch(`/v1/api-keys/${created.body.id}`)
      .set('Authorization', `Bearer ${fullKey}`)
      .send({ permissions: { anchors: 'read' } });
    expect(changed.status).toBe(200);
    expect((await anchorOn(a, restricted)).body).toMatchObject({ code: 'insufficient_permissions' });
    await heard;
    expect((await anchorOn(b, restricted)).body).toMatchObject({
      code: 'insufficient_permissions',
      required_permission: 'anchors:write',
    });
  });

  it("an operator's revocation in SQL is refused by B", async () => {
    const { key, id } = await aKeyCachedByB();
    const heard = heardBy(b, id);
    await a.prisma.$executeRaw`UPDATE api_keys SET revoked_at = now() WHERE id = ${id}`;
    await heard;
    expect((await anchorOn(b, key)).status).toBe(401);
  });

  it('B trusts no remembered key from the moment its listening connection is lost until it listens again', async () => {
    const listener = b.keyCaching.listener;
    if (!listener) throw new Error('B does not cache keys');
    const { key, id } = await aKeyCachedByB();
    // A revocation that bypasses the trigger sends no notification: B, trusting its cache, cannot
    // know of it (what the cache saves is exactly that read; docs/decisions.md).
    await a.prisma.$transaction([
      a.prisma.$executeRaw`ALTER TABLE api_keys DISABLE TRIGGER api_key_changed`,
      a.prisma.$executeRaw`UPDATE api_keys SET revoked_at = now() WHERE id = ${id}`,
      a.prisma.$executeRaw`ALTER TABLE api_keys ENABLE TRIGGER api_key_changed`,
    ]);
    expect((await anchorOn(b, key)).status).toBe(201);

    reconnectGate = aGate();
    const lost = once(listener, 'lost');
    const pid = listener.backendPid;
    expect(pid).not.toBeNull();
    await a.prisma.$queryRaw`SELECT pg_terminate_backend(${pid}::int)`;
    await lost;
    // Changes may now go unheard: every request reads its key, so the silent revocation counts at once.
    expect(b.keyCaching.cache.stats()).toMatchObject({ entries: 0, suspended: true });
    expect((await anchorOn(b, key)).status).toBe(401);
    const other = freshKeyOf((await aBrowser(a).signUp()).text);
    const hits = b.keyCaching.cache.stats().hits;
    for (let request = 0; request < 3; request++) expect((await anchorOn(b, other)).status).toBe(201);
    expect(b.keyCaching.cache.stats()).toMatchObject({ hits, entries: 0 });

    const subscribed = once(listener, 'subscribed');
    reconnectGate.open();
    await subscribed;
    expect(listener.backendPid).not.toBe(pid);
    expect((await anchorOn(b, other)).status).toBe(201);
    expect((await anchorOn(b, other)).status).toBe(201);
    expect(b.keyCaching.cache.stats()).toMatchObject({ hits: hits + 1, entries: 1, suspended: false });
  });
});
