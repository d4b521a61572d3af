// Two service instances on one PostgreSQL database, as two processes behind a proxy: whatever
// stops a key on one (revoke, roll, sign-out, an operator's SQL, events:read taken from it) ends
// that key's event streams on both within a second, as each hears the database's notification, without waiting for the
// streams' leases to be renewed (docs/decisions.md, "Event streams"). Needs DATABASE_URL.
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { aBrowser, freshKeyOf } from '../support/http/browser';
import { serveOnLoopback } from '../support/http/event-stream-client';
import { startTestApp, type TestApp } from '../support/http/test-app';
import { waitFor, within } from '../support/wait-for';

// A lease of ten minutes, renewed every 200 s: no renewal comes during a test, so a stream that
// ends was ended by the change heard.
const LIMITS = { perProcess: 10, perAccount: 5, heartbeatMs: 1_000, retryMs: 100, leaseMs: 600_000 };
const QUERY = 'location=Here&time_range=1600-01-01T00:00:00Z/1600-01-02T00:00:00Z';
/** What the issue of the change to the end of the stream may take, at most. */
const WITHIN_MS = 1_000;

interface Watched {
  readonly status: number;
  /** When the service ended the answer (Date.now()), or never while the test runs. */
  readonly ended: Promise<number>;
  /** The events it sent so far (`recorded` messages). */
  readonly recorded: number;
  /** Resolves once it has sent `count` events; rejects when it ends before. */
  recordedUpTo(count: number): Promise<void>;
  close(): void;
}

function watch(url: string, key: string): Promise<Watched> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}/v1/monitor-events?${QUERY}`,
      { headers: { Accept: 'text/event-stream', Authorization: `Bearer ${key}` } },
      (res) => {
        let text = '';
        let recorded = 0;
        const heard: Array<() => void> = [];
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          recorded = text.split('event: recorded\n').length - 1;
          heard.splice(0).forEach((check) => check());
        });
        const ended = once(res, 'end').then(() => Date.now());
        ended.catch(() => undefined);
        resolve({
          status: res.statusCode ?? 0,
          ended,
          get recorded() {
            return recorded;
          },
          recordedUpTo: (count) =>
            new Promise((sent, endedBefore) => {
              const check = (): void => (recorded >= count ? sent() : void heard.push(check));
              check();
              const early = () => endedBefore(new Error(`the stream ended after ${recorded} of ${count} events`));
              ended.then(early, early);
            }),
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('event streams of a key that stops, on two processes', () => {
  let a: TestApp;
  let b: TestApp;
  let servedA: Awaited<ReturnType<typeof serveOnLoopback>>;
  let servedB: Awaited<ReturnType<typeof serveOnLoopback>>;
  const open: Watched[] = [];

  beforeAll(async () => {
    a = await startTestApp({ eventStreams: LIMITS });
    b = await startTestApp({ eventStreams: LIMITS, sharing: a });
    servedA = await serveOnLoopback(a.app);
    servedB = await serveOnLoopback(b.app);
  });
  afterEach(() => open.splice(0).forEach((stream) => stream.close()));
  afterAll(async () => {
    await servedA?.close();
    await servedB?.close();
    await b?.close();
    await a?.close();
  });

  /** The key's streams on both processes, and another key's on B, which goes on. */
  async function streamsOf(key: string, other: string) {
    const onA = await watch(servedA.url, key);
    const onB = await watch(servedB.url, key);
    const untouched = await watch(servedB.url, other);
    open.push(onA, onB, untouched);
    expect([onA.status, onB.status, untouched.status]).toEqual([200, 200, 200]);
    return { onA, onB, untouched, other };
  }

  let minutes = 0;
  /** Open and served: an arrival that `key` records now reaches each of `streams`, none ending first. */
  async function expectServing(key: string, ...streams: Watched[]): Promise<void> {
    const counts = streams.map((stream) => stream.recorded + 1);
    const time = new Date(Date.UTC(1600, 0, 1, 0, ++minutes)).toISOString();
    const travelled = await request(a.app)
      .post('/v1/travel')
      .set('Authorization', `Bearer ${key}`)
      .send({ destination_time: time, location: 'Here' });
    expect(travelled.status).toBe(200);
    await within(Promise.all(streams.map((stream, at) => stream.recordedUpTo(counts[at] ?? 1))), {
      what: 'the arrival to reach every stream',
    });
  }

  async function expectEndedSoonAfter(
    change: () => Promise<unknown>,
    streams: Awaited<ReturnType<typeof streamsOf>>,
  ): Promise<void> {
    await change();
    const changed = Date.now();
    const ends = await Promise.all([streams.onA.ended, streams.onB.ended]);
    for (const end of ends) expect(end - changed).toBeLessThan(WITHIN_MS);
    await expectServing(streams.other, streams.untouched);
  }

  async function anAccountWithTwoKeys() {
    const browser = aBrowser(a);
    const key = freshKeyOf((await browser.signUp()).text);
    const other = freshKeyOf((await browser.submit('/dashboard/keys', { name: 'other' })).text);
    const { id } = await a.prisma.apiKey.findFirstOrThrow({ where: { prefix: key.slice(0, 12) } });
    return { browser, key, other, id };
  }

  it('ends a revoked key’s streams', async () => {
    const { browser, key, other, id } = await anAccountWithTwoKeys();
    const streams = await streamsOf(key, other);
    await expectEndedSoonAfter(async () => {
      expect((await browser.submit(`/dashboard/keys/${id}/revoke`)).status).toBe(200);
    }, streams);
  });

  it('ends a rolled key’s streams, and its replacement streams', async () => {
    const { browser, key, other, id } = await anAccountWithTwoKeys();
    const streams = await streamsOf(key, other);
    let replacement = '';
    await expectEndedSoonAfter(async () => {
      replacement = freshKeyOf((await browser.submit(`/dashboard/keys/${id}/roll`)).text);
    }, streams);
    const again = await watch(servedB.url, replacement);
    open.push(again);
    expect(again.status).toBe(200);
  });

  it('ends the streams of a session’s console key when the session signs out', async () => {
    const browser = aBrowser(a);
    const other = freshKeyOf((await browser.signUp()).text);
    const consoleKey = /"apiKey":"(tns_[A-Za-z0-9_-]{43})"/.exec((await browser.get('/docs')).text)?.[1] ?? '';
    const streams = await streamsOf(consoleKey, other);
    await expectEndedSoonAfter(async () => {
      expect((await browser.submit('/logout')).status).toBe(303);
    }, streams);
  });

  it('ends the streams of a key an operator revokes in SQL', async () => {
    const { key, other, id } = await anAccountWithTwoKeys();
    const streams = await streamsOf(key, other);
    await expectEndedSoonAfter(
      () => a.prisma.$executeRaw`UPDATE api_keys SET revoked_at = now() WHERE id = ${id}`,
      streams,
    );
  });

  it('keeps the streams of a key whose change leaves it valid', async () => {
    const { key, other, id } = await anAccountWithTwoKeys();
    const streams = await streamsOf(key, other);
    const leaseOf = async () =>
      (await a.prisma.eventStreamSlot.findMany({ where: { apiKeyId: id }, orderBy: { holder: 'asc' } })).map((slot) =>
        slot.expiresAt.getTime(),
      );
    const leased = await leaseOf();
    await a.prisma.$executeRaw`UPDATE api_keys SET expires_at = now() + interval '1 day' WHERE id = ${id}`;
    // Both processes checked the key again: each renewed its stream's lease, and kept the stream.
    await waitFor(async () => (await leaseOf()).every((lease, at) => lease > (leased[at] ?? Infinity)), {
      what: 'both leases renewed by the check that follows the change',
    });
    await expectServing(key, streams.onA, streams.onB);
  });

  /** A restricted key of a new account reading events and travelling, made with its full key by the API. */
  async function aRestrictedKey() {
    const { key: fullKey, other } = await anAccountWithTwoKeys();
    const byApi = (method: 'post' | 'patch', path: string, body: object) =>
      request(a.app)[method](path).set('Authorization', `Bearer ${fullKey}`).send(body);
    const created = await byApi('post', '/v1/api-keys', { permissions: { events: 'read', travels: 'write' } });
    const change = async (permissions: object) =>
      expect((await byApi('patch', `/v1/api-keys/${created.body.id}`, { permissions })).status).toBe(200);
    return { key: created.body.api_key as string, id: created.body.id as string, other, change };
  }

  it('ends the streams of a restricted key that loses events:read', async () => {
    const { key, other, change } = await aRestrictedKey();
    const streams = await streamsOf(key, other);
    await expectEndedSoonAfter(() => change({ travels: 'write' }), streams);
  });

  it('keeps the streams of a restricted key whose permissions change but for events:read', async () => {
    const { key, id, other, change } = await aRestrictedKey();
    const streams = await streamsOf(key, other);
    const leaseOf = async () =>
      (await a.prisma.eventStreamSlot.findMany({ where: { apiKeyId: id }, orderBy: { holder: 'asc' } })).map((slot) =>
        slot.expiresAt.getTime(),
      );
    const leased = await leaseOf();
    await change({ events: 'write', travels: 'write', anchors: 'read' });
    await waitFor(async () => (await leaseOf()).every((lease, at) => lease > (leased[at] ?? Infinity)), {
      what: 'both leases renewed by the check that follows the change',
    });
    await expectServing(key, streams.onA, streams.onB);
  });

  it('checks every stream again when its listener comes back, for a change it could not hear', async () => {
    const { key, other, id } = await anAccountWithTwoKeys();
    const streams = await streamsOf(key, other);
    const listener = b.keyCaching.listener;
    // A revocation that bypasses the trigger sends no notification; then B's listener is lost and
    // comes back, and B cannot know what it missed.
    await a.prisma.$transaction([
      a.prisma.$executeRaw`ALTER TABLE api_keys DISABLE TRIGGER api_key_changed`,
      a.prisma.$executeRaw`UPDATE api_keys SET revoked_at = now() WHERE id = ${id}`,
      a.prisma.$executeRaw`ALTER TABLE api_keys ENABLE TRIGGER api_key_changed`,
    ]);
    const subscribed = once(listener, 'subscribed');
    await a.prisma.$queryRaw`SELECT pg_terminate_backend(${listener.backendPid}::int)`;
    await subscribed;
    const resubscribed = Date.now();
    expect((await streams.onB.ended) - resubscribed).toBeLessThan(WITHIN_MS);
    await expectServing(other, streams.untouched);
  });
});
