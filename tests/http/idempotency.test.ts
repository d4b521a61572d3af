import { pino } from 'pino';
import request from 'supertest';
import { MAX_KEPT_ANSWER_BYTES } from '../../src/core/ports/idempotency-store';
import { textDigest } from '../../src/infrastructure/persistence/postgres/text-digest';
import { createMetricsRegistry } from '../../src/infrastructure/metrics/metrics-registry';
import { HttpMetrics } from '../../src/interfaces/http/middleware/http-metrics';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';
import { sumOf } from '../support/metrics/exposition';
import { startInMemoryTracing, type InMemoryTracing } from '../support/telemetry/in-memory-tracing';
import { waitFor } from '../support/wait-for';

/** 500 events at the Observatory on the account's traveller's timeline, as the service would have recorded them. */
async function recordSightings(t: TestApp, account: TestAccount): Promise<void> {
  await t.prisma.$executeRawUnsafe(
    `INSERT INTO events (account_id, id, timeline_id, kind, time, original_time, description, location,
       description_key, location_key, subject_id, recorded_at, revision)
     SELECT $1, 'evt_' || lpad(n::text, 6, '0'), (SELECT timeline_id FROM travellers WHERE account_id = $1),
       'arrival', timestamptz '1900-01-01T00:00:00Z' + n * interval '1 minute',
       timestamptz '1900-01-01T00:00:00Z' + n * interval '1 minute',
       'Sighting of a comet over the observatory, number ' || n, 'Observatory', md5('sighting ' || n), $2,
       NULL, now(), 0
     FROM generate_series(1, 500) AS n`,
    account.id,
    textDigest('Observatory'),
  );
}

/** `scan-events` of the Observatory's sightings, `limit` of them, with an Idempotency-Key. */
function scanSightings(t: TestApp, account: TestAccount, key: string, limit: number) {
  return request(t.app)
    .post('/api/v1/scan-events')
    .set('Authorization', account.auth)
    .set('Idempotency-Key', key)
    .send({ location: 'Observatory', time_range: '1900-01-01T00:00:00Z/1901-01-01T00:00:00Z', limit });
}

/** `Idempotency-Key` on authenticated POSTs: Stripe's semantics, kept 24 hours per account. */
describe('Idempotency-Key', () => {
  let t: TestApp;
  let me: TestAccount;
  let keys = 0;
  const newKey = () => `key-${Date.now()}-${++keys}`;

  const logLines: Array<{ request_id?: string; replayed?: boolean; code?: string }> = [];
  beforeAll(async () => {
    t = await startTestApp({
      logger: pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line)) }),
    });
    me = await t.signUp();
  });
  afterAll(() => t.close());

  /** The request log's line of a request, once written (when its connection closes). */
  const logLineOf = async (requestId: unknown) => {
    for (let tries = 0; tries < 1_000; tries += 1) {
      const line = logLines.find((candidate) => candidate.request_id === requestId);
      if (line) return line;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no log line of request ${String(requestId)}`);
  };

  const createAnchor = (account: TestAccount, key: string | undefined, body: object) => {
    const sent = request(t.app).post('/v1/anchors').set('Authorization', account.auth);
    return (key === undefined ? sent : sent.set('Idempotency-Key', key)).send(body);
  };
  const anchors = (account: TestAccount, description: string) =>
    t.prisma.anchor.count({ where: { accountId: account.id, description } });

  it('answers a retry with the first status, body and Location, and acts once', async () => {
    const key = newKey();
    const first = await createAnchor(me, key, { description: 'Retried home' });
    const retry = await createAnchor(me, key, { description: 'Retried home' });

    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect({ status: retry.status, body: retry.body }).toEqual({ status: first.status, body: first.body });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers['content-type']).toBe(first.headers['content-type']);
    expect(await anchors(me, 'Retried home')).toBe(1);
  });

  it('keeps no answer longer than 64 KiB: it is sent, and a retry is told so without acting again', async () => {
    const reader = await t.signUp();
    await recordSightings(t, reader);
    const key = newKey();
    const scan = () => scanSightings(t, reader, key, 500);

    const first = await scan();
    expect(first.status).toBe(200);
    expect(first.body.events).toHaveLength(500);
    expect(Buffer.byteLength(JSON.stringify(first.body))).toBeGreaterThan(MAX_KEPT_ANSWER_BYTES);

    const retry = await scan();
    expect(retry.status).toBe(409);
    expect(retry.body).toMatchObject({
      code: 'idempotency_answer_not_kept',
      first_status: 200,
      not_kept_because: 'too_long',
    });
    const [kept] = await t.prisma.$queryRawUnsafe<{ bytes: number }[]>(
      'SELECT octet_length(response_body::text) AS bytes FROM idempotency_keys WHERE account_id = $1 AND key = $2',
      reader.id,
      key,
    );
    expect(kept?.bytes).toBeLessThan(100);
  });

  it('replays the Location of a created timeline', async () => {
    const key = newKey();
    const body = { name: 'Apollo 11', destination_time: '1969-07-20T20:17:40Z' };
    const first = await request(t.app)
      .post('/v1/timelines')
      .set('Authorization', me.auth)
      .set('Idempotency-Key', key)
      .send(body);
    const retry = await request(t.app)
      .post('/v1/timelines')
      .set('Authorization', me.auth)
      .set('Idempotency-Key', key)
      .send(body);
    expect(first.status).toBe(201);
    expect(retry.headers.location).toBe(first.headers.location);
    expect(retry.body).toEqual(first.body);
    expect(await t.prisma.timeline.count({ where: { accountId: me.id, name: 'Apollo 11' } })).toBe(1);
  });

  it('refuses the same key with a different body, path or method, and does not act', async () => {
    const key = newKey();
    await createAnchor(me, key, { description: 'First use' }).expect(201);

    const otherBody = await createAnchor(me, key, { description: 'Second use' });
    expect(otherBody.status).toBe(422);
    expect(otherBody.body.code).toBe('idempotency_key_reused');
    expect(otherBody.headers['content-type']).toMatch(/^application\/problem\+json/);
    const otherPath = await request(t.app)
      .post('/v1/items')
      .set('Authorization', me.auth)
      .set('Idempotency-Key', key)
      .send({ description: 'First use' });
    expect(otherPath.body.code).toBe('idempotency_key_reused');
    expect(await anchors(me, 'Second use')).toBe(0);
    expect(await t.prisma.item.count({ where: { accountId: me.id, description: 'First use' } })).toBe(0);
  });

  it('keeps keys per account: another account acts with the same key', async () => {
    const other = await t.signUp();
    const key = newKey();
    const mine = await createAnchor(me, key, { description: 'Shared key' });
    const theirs = await createAnchor(other, key, { description: 'Shared key' });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect([await anchors(me, 'Shared key'), await anchors(other, 'Shared key')]).toEqual([1, 1]);
  });

  it('acts once for concurrent duplicates: the others get its answer, replayed', async () => {
    const key = newKey();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => createAnchor(me, key, { description: 'Concurrent home' })),
    );

    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(201));
    expect(answers.filter((answer) => answer.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
    expect(await anchors(me, 'Concurrent home')).toBe(1);
  });

  it('forgets a key after 24 hours: the same key then acts again, even with another body', async () => {
    const key = newKey();
    await createAnchor(me, key, { description: 'Before expiry' }).expect(201);
    t.clock.advanceMinutes(23 * 60);
    expect((await createAnchor(me, key, { description: 'Before expiry' })).headers['idempotent-replayed']).toBe('true');
    expect((await createAnchor(me, key, { description: 'After expiry' })).status).toBe(422);

    t.clock.advanceMinutes(61);
    const after = await createAnchor(me, key, { description: 'After expiry' });
    expect(after.status).toBe(201);
    expect(after.headers['idempotent-replayed']).toBeUndefined();
    expect(await anchors(me, 'After expiry')).toBe(1);
    const row = await t.prisma.idempotencyKey.findUniqueOrThrow({
      where: { accountId_key: { accountId: me.id, key } },
    });
    expect(row.createdAt.getTime()).toBeGreaterThan(Date.now() + 23 * 3_600_000);
  });

  it('keeps and replays a refused request (400 validation)', async () => {
    const key = newKey();
    const first = await createAnchor(me, key, {});
    const retry = await createAnchor(me, key, {});
    expect(first.status).toBe(400);
    expect(first.body.code).toBe('validation_failed');
    // The first answer, but for the request id: this request's, as its X-Request-Id says.
    const requestId = retry.headers['x-request-id'];
    expect({ status: retry.status, body: retry.body }).toEqual({
      status: 400,
      body: { ...first.body, request_id: requestId },
    });
    expect(requestId).not.toBe(first.headers['x-request-id']);
    // Its log line says it replayed; the first's does not.
    expect(await logLineOf(requestId)).toMatchObject({ replayed: true, code: 'validation_failed' });
    expect((await logLineOf(first.headers['x-request-id'])).replayed).toBeUndefined();
    expect(retry.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(retry.headers['idempotent-replayed']).toBe('true');
  });

  it('replays a refusal word for word but its request id, even one echoing a field named with U+0000', async () => {
    const key = newKey();
    const body = { description: 'Odd field', '\u0000odd': 1 };
    const first = await createAnchor(me, key, body);
    const retry = await createAnchor(me, key, body);
    expect([first.status, first.body.code]).toEqual([400, 'validation_failed']);
    expect(first.text).toContain('\\u0000odd');
    const firstId = String(first.headers['x-request-id']);
    const retryId = String(retry.headers['x-request-id']);
    expect({ status: retry.status, text: retry.text, replayed: retry.headers['idempotent-replayed'] }).toEqual({
      status: 400,
      text: first.text.replace(`"request_id":"${firstId}"`, `"request_id":"${retryId}"`),
      replayed: 'true',
    });
    expect(retry.text).not.toContain(firstId);
  });

  it('keeps a state conflict (409): the retry gets it even after the state changed', async () => {
    const other = await t.signUp();
    await request(t.app).post('/v1/pause-time').set('Authorization', other.auth).expect(200);
    const key = newKey();
    const resume = () =>
      request(t.app).post('/v1/resume-time').set('Authorization', other.auth).set('Idempotency-Key', key);
    expect((await resume()).status).toBe(200);
    const retry = await resume();
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    // Without the key, the same request acts and meets the running clock.
    expect((await request(t.app).post('/v1/resume-time').set('Authorization', other.auth)).body.code).toBe(
      'clock_already_running',
    );
  });

  it('refuses a key that is empty, too long or not printable ASCII', async () => {
    for (const key of ['', 'k'.repeat(256), 'clé']) {
      const answer = await request(t.app)
        .post('/v1/anchors')
        .set('Authorization', me.auth)
        .set('Idempotency-Key', key)
        .send({ description: 'Bad key' });
      expect({ key, status: answer.status, code: answer.body.code }).toEqual({
        key,
        status: 400,
        code: 'validation_failed',
      });
      expect(answer.body.errors).toEqual([{ field: 'Idempotency-Key', message: expect.any(String) }]);
    }
    expect((await createAnchor(me, 'k'.repeat(255), { description: 'Long key' })).status).toBe(201);
    expect(await anchors(me, 'Bad key')).toBe(0);
  });

  it('is ignored by GET', async () => {
    const key = newKey();
    const first = await request(t.app).get('/timelines').set('Authorization', me.auth).set('Idempotency-Key', key);
    const second = await request(t.app)
      .get('/timelines')
      .set('Authorization', me.auth)
      .set('Idempotency-Key', key)
      .query({ limit: 1 });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(await t.prisma.idempotencyKey.count({ where: { key } })).toBe(0);
  });

  it('is ignored by the unauthenticated sign-up (there is no account to keep the key for)', async () => {
    const key = newKey();
    const signUp = (email: string) =>
      request(t.app)
        .post('/v1/accounts')
        .set('Idempotency-Key', key)
        .send({ email, password: 'correct horse battery' });
    expect((await signUp(`idem-a-${Date.now()}@example.com`)).status).toBe(201);
    expect((await signUp(`idem-b-${Date.now()}@example.com`)).status).toBe(201);
  });

  describe('keeps the answer in the statement of the writes', () => {
    const refusedKey = 'answer-refused-by-the-database';
    beforeAll(async () => {
      // The database refuses to keep this one key's answer, as a commit that fails would.
      await t.prisma.$executeRawUnsafe(`
        CREATE FUNCTION refuse_test_answer() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.key = '${refusedKey}' AND NEW.response_status IS NOT NULL THEN
            RAISE EXCEPTION 'answer refused by the test';
          END IF;
          RETURN NEW;
        END $$`);
      await t.prisma.$executeRawUnsafe(
        'CREATE TRIGGER refuse_test_answer BEFORE INSERT OR UPDATE ON idempotency_keys ' +
          'FOR EACH ROW EXECUTE FUNCTION refuse_test_answer()',
      );
    });
    afterAll(async () => {
      await t.prisma.$executeRawUnsafe('DROP TRIGGER IF EXISTS refuse_test_answer ON idempotency_keys');
    });

    it('writes nothing when the answer cannot be kept, claims no key, and the retry acts once', async () => {
      const before = await t.prisma.event.count({ where: { accountId: me.id } });
      const failed = await createAnchor(me, refusedKey, { description: 'Answer refused' });
      expect(failed.status).toBe(500);
      expect(failed.body.code).toBe('internal_error');
      expect(t.takeLoggedErrors().map(String)).toEqual([expect.stringContaining('answer refused by the test')]);
      expect(await anchors(me, 'Answer refused')).toBe(0);
      expect(await t.prisma.event.count({ where: { accountId: me.id } })).toBe(before);
      expect(await t.prisma.idempotencyKey.count({ where: { accountId: me.id, key: refusedKey } })).toBe(0);

      await t.prisma.$executeRawUnsafe('DROP TRIGGER refuse_test_answer ON idempotency_keys');
      const retry = await createAnchor(me, refusedKey, { description: 'Answer refused' });
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(await anchors(me, 'Answer refused')).toBe(1);
      expect(await t.prisma.event.count({ where: { accountId: me.id } })).toBe(before + 1);
    });

    it('keeps a refusal together with what the refusal recorded (a travel window found expired)', async () => {
      const other = await t.signUp();
      const post = (path: string, body: object, key?: string) => {
        const sent = request(t.app).post(path).set('Authorization', other.auth);
        return (key === undefined ? sent : sent.set('Idempotency-Key', key)).send(body);
      };
      const trip = (
        await post('/v1/timelines', {
          name: 'Brief',
          destination_time: '1815-06-18T11:00:00Z',
          window: '1 minute',
        }).expect(201)
      ).body.id;
      await post('/v1/travels', { destination: trip }).expect(201);
      t.clock.advanceMinutes(2);

      const key = newKey();
      const refused = await post('/v1/anchors', { description: 'Too late' }, key);
      expect([refused.status, refused.body.code]).toEqual([409, 'timeline_window_expired']);
      const stored = await t.prisma.timeline.findUniqueOrThrow({
        where: { accountId_id: { accountId: other.id, id: trip } },
      });
      expect(stored.status).toBe('expired');
      expect(await t.prisma.anchor.count({ where: { accountId: other.id } })).toBe(0);
      const retry = await post('/v1/anchors', { description: 'Too late' }, key);
      expect({ status: retry.status, body: retry.body, replayed: retry.headers['idempotent-replayed'] }).toEqual({
        status: 409,
        body: { ...refused.body, request_id: retry.headers['x-request-id'] },
        replayed: 'true',
      });
    });

    it('lets a read-only request keep its answer with no transaction of writes', async () => {
      const key = newKey();
      const body = { timeline_id: 'primary', proposed_changes: [] };
      const first = await request(t.app)
        .post('/v1/paradox-checks')
        .set('Authorization', me.auth)
        .set('Idempotency-Key', key)
        .send(body);
      const retry = await request(t.app)
        .post('/v1/paradox-checks')
        .set('Authorization', me.auth)
        .set('Idempotency-Key', key)
        .send(body);
      expect(first.status).toBe(200);
      expect({ status: retry.status, body: retry.body, replayed: retry.headers['idempotent-replayed'] }).toEqual({
        status: 200,
        body: first.body,
        replayed: 'true',
      });
    });
  });

  it('takes over a key claimed without its answer, as an earlier release claimed before acting', async () => {
    const key = newKey();
    const check = () =>
      request(t.app)
        .post('/v1/paradox-checks')
        .set('Authorization', me.auth)
        .set('Idempotency-Key', key)
        .send({ timeline_id: 'primary' });
    const first = await check().expect(200);
    // What such a claim looks like: the key's row without an answer. Its request writes only while
    // the claim is unchanged, so taking it over leaves one of the two to act.
    await t.prisma.$executeRaw`
      UPDATE idempotency_keys SET response_status = NULL, response_body = NULL, response_headers = NULL
       WHERE account_id = ${me.id} AND key = ${key}`;

    const takenOver = await check();
    expect([takenOver.status, takenOver.headers['idempotent-replayed']]).toEqual([200, undefined]);
    expect(takenOver.body).toEqual(first.body);
    const retry = await check();
    expect([retry.status, retry.headers['idempotent-replayed']]).toEqual([200, 'true']);
  });

  it('works without a key as before', async () => {
    await createAnchor(me, undefined, { description: 'No key' }).expect(201);
    await createAnchor(me, undefined, { description: 'No key' }).expect(201);
    expect(await anchors(me, 'No key')).toBe(2);
  });
});

/** Twenty minutes into the current hour, frozen: a test cannot straddle the hour's window. */
function twentyPastTheHour(): Date {
  const HOUR_MS = 3_600_000;
  return new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS + 20 * 60_000);
}

/** Rows of the account's Idempotency-Keys, and the bytes of their kept answers. */
async function keptKeys(t: TestApp, account: TestAccount): Promise<{ rows: number; bytes: number }> {
  const [row] = await t.prisma.$queryRawUnsafe<{ rows: bigint; bytes: bigint }[]>(
    `SELECT count(*)::bigint AS rows, COALESCE(sum(octet_length(response_body::text)), 0)::bigint AS bytes
     FROM idempotency_keys WHERE account_id = $1`,
    account.id,
  );
  return { rows: Number(row?.rows ?? 0), bytes: Number(row?.bytes ?? 0) };
}

describe('Idempotency-Key: the keyed requests one account makes in an hour', () => {
  const registry = createMetricsRegistry();
  const logLines: Array<{ request_id?: string; code?: string }> = [];
  let tracing: InMemoryTracing;
  let t: TestApp;

  beforeAll(async () => {
    tracing = startInMemoryTracing();
    t = await startTestApp({
      keptKeysPerHour: 3,
      metrics: new HttpMetrics(registry),
      logger: pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line)) }),
      tracer: tracing.tracer,
    });
    t.clock.freezeAt(twentyPastTheHour());
  });
  afterAll(async () => {
    await t.close();
    await tracing.close();
  });

  const createAnchor = (account: TestAccount, key: string | undefined, description: string) => {
    const sent = request(t.app).post('/v1/anchors').set('Authorization', account.auth);
    return (key === undefined ? sent : sent.set('Idempotency-Key', key)).send({ description });
  };
  const anchors = (account: TestAccount, description: string) =>
    t.prisma.anchor.count({ where: { accountId: account.id, description } });

  it('refuses a new key past the bound before it acts: 429 with Retry-After, no anchor, no row', async () => {
    const me = await t.signUp();
    for (const n of [1, 2, 3]) expect((await createAnchor(me, `bound-${n}`, `Within ${n}`)).status).toBe(201);
    const before = await registry.metrics();

    const refused = await createAnchor(me, 'bound-4', 'Past the bound');

    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('2400');
    expect(refused.body).toMatchObject({
      type: '/problems/idempotency_quota_exceeded',
      status: 429,
      code: 'idempotency_quota_exceeded',
      quota: 'keys',
    });
    expect(await anchors(me, 'Past the bound')).toBe(0);
    expect(await keptKeys(t, me)).toMatchObject({ rows: 3 });
    // Sent again within the hour, it is refused again, and still acts on nothing.
    expect((await createAnchor(me, 'bound-4', 'Past the bound')).status).toBe(429);
    expect(await anchors(me, 'Past the bound')).toBe(0);
    expect(await keptKeys(t, me)).toMatchObject({ rows: 3 });
    // Operators see it: by quota in its own counter, by code in the problems and on the log line.
    const after = await registry.metrics();
    const increase = (name: string, labels: Record<string, string>) =>
      sumOf(after, name, labels) - sumOf(before, name, labels);
    expect(increase('tns_idempotency_quota_refusals_total', { quota: 'keys' })).toBe(2);
    expect(increase('tns_idempotency_quota_refusals_total', { quota: 'kept_bytes' })).toBe(0);
    expect(increase('tns_http_problems_total', { code: 'idempotency_quota_exceeded' })).toBe(2);
    const logLine = await waitFor(() => logLines.find((line) => line.request_id === refused.body.request_id), {
      what: "the refused request's log line",
    });
    expect(logLine.code).toBe('idempotency_quota_exceeded');
    const refusals = await waitFor(
      () => {
        const events = tracing
          .named('POST /v1/anchors')
          .flatMap((span) => span.events.filter((event) => event.name === 'idempotency quota exceeded'));
        return events.length === 2 && events;
      },
      { what: "the refusals' span events" },
    );
    expect(refusals.map((event) => event.attributes)).toEqual([{ quota: 'keys' }, { quota: 'keys' }]);
  });

  it('past the bound, still replays a kept key and serves requests without one', async () => {
    const me = await t.signUp();
    const first = await createAnchor(me, 'kept-1', 'Kept');
    for (const n of [2, 3]) await createAnchor(me, `kept-${n}`, `Kept ${n}`);
    expect((await createAnchor(me, 'kept-4', 'Refused')).status).toBe(429);

    const retry = await createAnchor(me, 'kept-1', 'Kept');
    const reused = await createAnchor(me, 'kept-1', 'Another request');
    const unkeyed = await createAnchor(me, undefined, 'Without a key');

    expect({ status: retry.status, body: retry.body }).toEqual({ status: 201, body: first.body });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(reused.body.code).toBe('idempotency_key_reused');
    expect(await anchors(me, 'Kept')).toBe(1);
    expect(await anchors(me, 'Another request')).toBe(0);
    expect(unkeyed.status).toBe(201);
    expect(await keptKeys(t, me)).toMatchObject({ rows: 3 });
  });

  it('lets no more than the bound act of keyed requests sent at once, and counts each account on its own', async () => {
    const [me, other] = [await t.signUp(), await t.signUp()];

    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, n) => createAnchor(me, `together-${n}`, 'Sent together')),
    );

    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 429, 429, 429]);
    expect(await anchors(me, 'Sent together')).toBe(3);
    expect(await keptKeys(t, me)).toMatchObject({ rows: 3 });
    expect((await createAnchor(other, 'together-0', 'Sent together')).status).toBe(201);
  });

  it('admits keyed requests again once the hour is over', async () => {
    const me = await t.signUp();
    for (const n of [1, 2, 3]) await createAnchor(me, `hourly-${n}`, 'Hourly');
    expect((await createAnchor(me, 'hourly-4', 'Next hour')).status).toBe(429);

    t.clock.advanceMinutes(40);

    expect((await createAnchor(me, 'hourly-4', 'Next hour')).status).toBe(201);
    expect(await anchors(me, 'Next hour')).toBe(1);
  });
});

describe('Idempotency-Key: what one account keeps in an hour', () => {
  let t: TestApp;
  const MIB = 1024 * 1024;

  beforeAll(async () => {
    t = await startTestApp({ keptAnswersMibPerHour: 1 });
    t.clock.freezeAt(twentyPastTheHour());
  });
  afterAll(() => t.close());

  it('keeps answers up to its bytes an hour, then refuses keyed requests before they act', async () => {
    const [noisy, quiet] = [await t.signUp(), await t.signUp()];
    await Promise.all([recordSightings(t, noisy), recordSightings(t, quiet)]);
    // About 50 KB an answer: under the 64 KiB one answer may keep, about 20 of them in the 1 MiB.
    const answers = [];
    for (let n = 0; n < 24; n += 1) answers.push(await scanSightings(t, noisy, `scan-${n}`, 200));

    const kept = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(kept.length + refused.length).toBe(24);
    // Refused from the first whose answer might no longer fit: all after it, none before.
    expect(answers.slice(kept.length).every((answer) => answer.status === 429)).toBe(true);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.headers['retry-after']).toBe('2400');
      expect(answer.body).toMatchObject({ code: 'idempotency_quota_exceeded', quota: 'kept_bytes' });
    }
    const stored = await keptKeys(t, noisy);
    expect(stored.rows).toBe(kept.length);
    expect(stored.bytes).toBeLessThanOrEqual(MIB);
    expect(stored.bytes).toBeGreaterThan(MIB - 2 * 64 * 1024);
    // Every answer acted on was kept whole, and its retry is replayed past the bound.
    for (let n = 0; n < kept.length; n += 1) {
      const retry = await scanSightings(t, noisy, `scan-${n}`, 200);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(kept[n]?.body);
    }
    // A write is refused before it acts, too.
    const write = await request(t.app)
      .post('/v1/anchors')
      .set('Authorization', noisy.auth)
      .set('Idempotency-Key', 'write-past-the-bytes')
      .send({ description: 'Past the bytes' });
    expect(write.status).toBe(429);
    expect(await t.prisma.anchor.count({ where: { accountId: noisy.id, description: 'Past the bytes' } })).toBe(0);

    // Another account's answers are its own to keep.
    const key = 'quiet-scan';
    await scanSightings(t, quiet, key, 200);
    const retry = await scanSightings(t, quiet, key, 200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
  });
});
