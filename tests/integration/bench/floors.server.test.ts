// The benchmark's floors (scripts/bench/floors.ts) claim to do a request's database work and no
// more: these hold them to it, reading what each floor wrote back through the service's own
// repositories. A floor that wrote less than the service would make the benchmark's verdict wrong.
import express, { type Request } from 'express';
import { Pool } from 'pg';
import request from 'supertest';
import { TimeRange } from '../../../src/core/domain/time-range';
import type { Repositories } from '../../../src/core/ports/repositories';
import { PostgresIdempotencyStore } from '../../../src/infrastructure/persistence/postgres/idempotency-store';
import { plainRepositories } from '../../support/plain-repositories';
import { KeyedRequests } from '../../../src/infrastructure/persistence/postgres/unit-of-work/keyed-requests';
import { requestDigest } from '../../../src/interfaces/http/middleware/idempotency';
import { presentEvent, presentTimeline } from '../../../src/interfaces/http/presenters/resources';
import { FLOOR_ACCOUNT_HEADER, FLOOR_KEY_HEADER, mountFloors } from '../../../scripts/bench/floors';
import { anEvent } from '../../support/builders/event-builder';
import { aPausedTraveller } from '../../support/builders/traveller-builder';
import { aTimeline, thePrimaryTimeline } from '../../support/builders/timeline-builder';
import { givenAccounts } from '../../support/contracts/subject';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

jest.setTimeout(30_000);

const ACCOUNT = 'acc_1';
const PAUSED_AT = new Date('1969-07-20T20:17:40.000Z');
const ANCHOR_BODY = { description: 'Bench anchor' };
/** The decade the listing tests write their events in and list. */
const DECADE = '1950-01-01T00:00:00Z/1960-01-01T00:00:00Z';
/** The digest the service keeps of the keyed floor's request, to tell a retry from a misuse. */
const KEYED_DIGEST = requestDigest({
  method: 'POST',
  originalUrl: '/floor/anchor-keyed',
  body: ANCHOR_BODY,
} as Request);

describe('benchmark floors', () => {
  let database: TestDatabase;
  let repos: Repositories;
  let pool: Pool;
  let app: express.Express;
  let keys: PostgresIdempotencyStore;

  beforeAll(async () => {
    database = await provisionTestDatabase();
    repos = plainRepositories(database);
    await givenAccounts(repos, ACCOUNT);
    await repos.travellers.add(aPausedTraveller(ACCOUNT, PAUSED_AT));
    await repos.timelines.add(thePrimaryTimeline());
    pool = new Pool({ connectionString: database.connectionString });
    app = express();
    app.use(express.json());
    mountFloors(app, pool);
    keys = new PostgresIdempotencyStore(database.prisma, database.sql, new KeyedRequests(database.sql), {
      now: () => new Date(),
    });
  });
  afterAll(async () => {
    await pool.end();
    await database.close();
  });

  const postKeyedAnchor = (key: string) =>
    request(app)
      .post('/floor/anchor-keyed')
      .set(FLOOR_ACCOUNT_HEADER, ACCOUNT)
      .set(FLOOR_KEY_HEADER, key)
      .send(ANCHOR_BODY);

  it("sets an anchor as the service does: the anchor, its event, the traveller's version moved", async () => {
    const before = await versionOf(ACCOUNT);
    const answer = await request(app)
      .post('/floor/anchor')
      .set(FLOOR_ACCOUNT_HEADER, ACCOUNT)
      .send({ description: 'Bench anchor' });

    expect(answer.status).toBe(201);
    const anchor = await repos.anchors.findForAccount(ACCOUNT, answer.body.id);
    expect(anchor).toMatchObject({ description: 'Bench anchor', timelineId: 'primary', location: 'home' });
    expect((await anchorEvents()).map((event) => [event.subjectId, event.description])).toContainEqual([
      answer.body.id,
      'Anchor set: Bench anchor',
    ]);
    expect(await versionOf(ACCOUNT)).toBe(before + 1n);
  });

  it('fast-forwards as the service does: the clock a minute on, under the version guard', async () => {
    const before = await versionOf(ACCOUNT);
    const clockBefore = (await repos.travellers.getForAccount(ACCOUNT)).currentTime(new Date());

    const answer = await request(app)
      .post('/floor/fast-forward')
      .set(FLOOR_ACCOUNT_HEADER, ACCOUNT)
      .send({ duration: '1m' });

    expect(answer.status).toBe(200);
    const clockAfter = (await repos.travellers.getForAccount(ACCOUNT)).currentTime(new Date());
    expect(clockAfter.getTime() - clockBefore.getTime()).toBe(60_000);
    expect(await versionOf(ACCOUNT)).toBe(before + 1n);
  });

  it('writes again after another writer moved the traveller (its version read anew)', async () => {
    await request(app).post('/floor/fast-forward').set(FLOOR_ACCOUNT_HEADER, ACCOUNT).send({ duration: '1m' });
    await pool.query('UPDATE travellers SET version = version + 1 WHERE account_id = $1', [ACCOUNT]);
    const before = await versionOf(ACCOUNT);

    const answer = await request(app)
      .post('/floor/fast-forward')
      .set(FLOOR_ACCOUNT_HEADER, ACCOUNT)
      .send({ duration: '1m' });

    expect(answer.status).toBe(200);
    expect(await versionOf(ACCOUNT)).toBe(before + 1n);
  });

  it('answers the page the service lists, in its order', async () => {
    const place = 'Observatory 417';
    const listed = await eventsListedAt(place, 'evt_floor', 5, (n) => new Date(Date.UTC(1955, 0, 5 - n)), 100);

    const answer = await request(app)
      .get('/floor/listing')
      .query({ location: place, time_range: DECADE })
      .set(FLOOR_ACCOUNT_HEADER, ACCOUNT);

    expect(answer.status).toBe(200);
    expect(answer.body.events.map((event: { id: string }) => event.id)).toEqual(
      listed?.events.map((event) => event.id),
    );
    expect(answer.body.events).toHaveLength(5);
  });

  it('cuts a full page at a hundred events, the hundred the service lists first', async () => {
    const place = 'Observatory 9';
    const listed = await eventsListedAt(place, 'evt_full', 105, (n) => new Date(Date.UTC(1955, 0, 1, n)), 101);

    const answer = await request(app)
      .get('/floor/listing')
      .query({ location: place, time_range: DECADE })
      .set(FLOOR_ACCOUNT_HEADER, ACCOUNT);

    expect(answer.status).toBe(200);
    expect(answer.body.events.map((event: { id: string }) => event.id)).toEqual(
      listed?.events.slice(0, 100).map((event) => event.id),
    );
    expect(answer.body.events).toHaveLength(100);
  });

  it('answers, with the domain model, the page the service presents', async () => {
    const place = 'Observatory 12';
    const listed = await eventsListedAt(place, 'evt_modelled', 3, (n) => new Date(Date.UTC(1957, 3, 1 + n)), 100);

    const answer = await request(app)
      .get('/floor/modelled/listing')
      .query({ location: place, time_range: DECADE })
      .set(FLOOR_ACCOUNT_HEADER, ACCOUNT);

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      location: place,
      time_range: DECADE,
      timeline_id: 'primary',
      events: listed?.events.map(presentEvent),
      next_cursor: null,
    });
    expect(answer.body.events).toHaveLength(3);
  });

  it('answers, with the domain model, the timeline the service presents', async () => {
    await repos.timelines.add(aTimeline().ofAccount(ACCOUNT).withId('tml_modelled').withWindowMinutes(30).build());
    const found = await repos.timelines.findForAccount(ACCOUNT, 'tml_modelled');

    const answer = await request(app).get('/floor/modelled/timeline/tml_modelled').set(FLOOR_ACCOUNT_HEADER, ACCOUNT);

    expect(answer.status).toBe(200);
    expect(found).not.toBeNull();
    expect(answer.body).toEqual(found && presentTimeline(found.settledAt(new Date())));
  });

  /** What the service answers a retry with `key` of the keyed floor's request (`produce` then writes nothing). */
  const retried = (key: string) =>
    keys.answerOnce(
      ACCOUNT,
      key,
      KEYED_DIGEST,
      () => Promise.resolve({ status: 500, body: null, headers: {} }),
      () => Promise.resolve(null),
    );

  it('sets a keyed anchor as the service does: the anchor, its event and the key claimed with the answer', async () => {
    const before = await versionOf(ACCOUNT);
    const answer = await postKeyedAnchor('floor-key-1');

    expect(answer.status).toBe(201);
    const anchor = await repos.anchors.findForAccount(ACCOUNT, answer.body.id);
    expect(anchor).toMatchObject({ description: 'Bench anchor', timelineId: 'primary', location: 'home' });
    expect((await anchorEvents()).map((event) => event.subjectId)).toContain(answer.body.id);
    expect(await versionOf(ACCOUNT)).toBe(before + 1n);
    // A retry with the key would be answered what the floor answered, and would not act.
    expect(await retried('floor-key-1')).toEqual({
      outcome: 'replay',
      response: {
        status: 201,
        json: JSON.stringify(answer.body),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      },
    });
  });

  it('writes nothing under a key already kept for a request', async () => {
    const first = await postKeyedAnchor('floor-key-kept');
    const before = await versionOf(ACCOUNT);
    const eventsBefore = (await anchorEvents()).length;

    const answer = await postKeyedAnchor('floor-key-kept');

    expect(answer.status).toBe(409);
    expect(await versionOf(ACCOUNT)).toBe(before);
    expect(await anchorEvents()).toHaveLength(eventsBefore);
    expect(await retried('floor-key-kept')).toMatchObject({
      outcome: 'replay',
      response: { json: JSON.stringify(first.body) },
    });
  });

  it('reads the timeline the service reads', async () => {
    await repos.timelines.add(aTimeline().ofAccount(ACCOUNT).withId('tml_floor').withWindowMinutes(30).build());
    const found = await repos.timelines.findForAccount(ACCOUNT, 'tml_floor');

    const answer = await request(app).get('/floor/timeline/tml_floor').set(FLOOR_ACCOUNT_HEADER, ACCOUNT);

    expect(answer.status).toBe(200);
    const timeline = answer.body as Record<string, string | number | null>;
    expect({
      id: timeline.id,
      name: timeline.name,
      destinationTime: new Date(String(timeline.destinationTime)),
      createdAt: new Date(String(timeline.createdAt)),
      status: timeline.status,
      windowMinutes: timeline.windowMinutes,
    }).toEqual({
      id: found?.id,
      name: found?.name,
      destinationTime: found?.destinationTime,
      createdAt: found?.createdAt,
      status: found?.status,
      windowMinutes: found?.windowMinutes,
    });
  });

  it("answers 404 for another account's timeline, as the service's statement finds none", async () => {
    const answer = await request(app).get('/floor/timeline/tml_floor').set(FLOOR_ACCOUNT_HEADER, 'acc_2');

    expect(answer.status).toBe(404);
  });

  /** `count` events written at `place` (ids `<prefix>_<n>`, at `timeOf(n)`), then listed there by the service. */
  async function eventsListedAt(
    place: string,
    prefix: string,
    count: number,
    timeOf: (n: number) => Date,
    limit: number,
  ) {
    for (let n = 0; n < count; n++) {
      await repos.events.add(
        anEvent({
          accountId: ACCOUNT,
          id: `${prefix}_${String(n).padStart(3, '0')}`,
          timelineId: 'primary',
          location: place,
          time: timeOf(n),
        }),
      );
    }
    return repos.events.listAt(ACCOUNT, {
      place,
      range: TimeRange.parse(DECADE),
      after: null,
      limit,
      timelineId: null,
    });
  }

  /** The account's anchor_set events, as the service lists them at the anchors' place. */
  async function anchorEvents() {
    const listed = await repos.events.listAt(ACCOUNT, {
      place: 'home',
      range: TimeRange.parse('0001-01-01T00:00:00Z/9999-12-31T23:59:59Z'),
      after: null,
      limit: 1000,
      timelineId: null,
    });
    const ids = (listed?.events ?? []).filter((event) => event.kind === 'anchor_set').map((event) => event.id);
    // Read whole, with the record each depends on, which a listing does not show.
    const events = await Promise.all(ids.map((id) => repos.events.findForAccount(ACCOUNT, id)));
    return events.filter((event) => event !== null);
  }

  async function versionOf(accountId: string): Promise<bigint> {
    const { rows } = await pool.query<{ version: string }>(
      'SELECT version::text AS version FROM travellers WHERE account_id = $1',
      [accountId],
    );
    return BigInt(rows[0]?.version ?? '-1');
  }
});
