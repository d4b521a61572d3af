// The benchmark's floors (scripts/bench/floors.ts) claim to do a request's database work and no
// more: these hold them to it, reading what each floor wrote back through the service's own
// repositories. A floor that wrote less than the service would make the benchmark's verdict wrong.
import express from 'express';
import { Pool } from 'pg';
import request from 'supertest';
import { TimeRange } from '../../../src/core/domain/time-range';
import type { Repositories } from '../../../src/core/ports/repositories';
import { plainRepositories } from '../../../src/infrastructure/persistence/postgres/repositories';
import { FLOOR_ACCOUNT_HEADER, mountFloors } from '../../../scripts/bench/floors';
import { anEvent } from '../../support/builders/event-builder';
import { aPausedTraveller } from '../../support/builders/traveller-builder';
import { thePrimaryTimeline } from '../../support/builders/timeline-builder';
import { givenAccounts } from '../../support/contracts/subject';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

jest.setTimeout(30_000);

const ACCOUNT = 'acc_1';
const PAUSED_AT = new Date('1969-07-20T20:17:40.000Z');

describe('benchmark floors', () => {
  let database: TestDatabase;
  let repos: Repositories;
  let pool: Pool;
  let app: express.Express;

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
  });
  afterAll(async () => {
    await pool.end();
    await database.close();
  });

  it("sets an anchor as the service does: the anchor, its event, the traveller's version moved", async () => {
    const before = await versionOf(ACCOUNT);
    const answer = await request(app)
      .post('/floor/anchor')
      .set(FLOOR_ACCOUNT_HEADER, ACCOUNT)
      .send({ description: 'Bench anchor' });

    expect(answer.status).toBe(201);
    const anchor = await repos.anchors.findForAccount(ACCOUNT, answer.body.id);
    expect(anchor).toMatchObject({ description: 'Bench anchor', timelineId: 'primary', location: 'home' });
    const listed = await repos.events.listAt(ACCOUNT, {
      place: 'home',
      range: TimeRange.parse('0001-01-01T00:00:00Z/9999-12-31T23:59:59Z'),
      after: null,
      limit: 10,
      timelineId: null,
    });
    expect(listed?.events.map((event) => [event.kind, event.subjectId, event.description])).toContainEqual([
      'anchor_set',
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
    for (let n = 0; n < 5; n++) {
      await repos.events.add(
        anEvent({
          accountId: ACCOUNT,
          id: `evt_floor_${n}`,
          timelineId: 'primary',
          location: place,
          time: new Date(Date.UTC(1955, 0, 5 - n)),
        }),
      );
    }
    const decade = '1950-01-01T00:00:00Z/1960-01-01T00:00:00Z';
    const listed = await repos.events.listAt(ACCOUNT, {
      place,
      range: TimeRange.parse(decade),
      after: null,
      limit: 100,
      timelineId: null,
    });

    const answer = await request(app)
      .get('/floor/listing')
      .query({ location: place, time_range: decade })
      .set(FLOOR_ACCOUNT_HEADER, ACCOUNT);

    expect(answer.status).toBe(200);
    expect(answer.body.events.map((event: { id: string }) => event.id)).toEqual(
      listed?.events.map((event) => event.id),
    );
    expect(answer.body.events).toHaveLength(5);
  });

  it('cuts a full page at a hundred events, the hundred the service lists first', async () => {
    const place = 'Observatory 9';
    for (let n = 0; n < 105; n++) {
      await repos.events.add(
        anEvent({
          accountId: ACCOUNT,
          id: `evt_full_${String(n).padStart(3, '0')}`,
          timelineId: 'primary',
          location: place,
          time: new Date(Date.UTC(1955, 0, 1, n)),
        }),
      );
    }
    const decade = '1950-01-01T00:00:00Z/1960-01-01T00:00:00Z';
    const listed = await repos.events.listAt(ACCOUNT, {
      place,
      range: TimeRange.parse(decade),
      after: null,
      limit: 101,
      timelineId: null,
    });

    const answer = await request(app)
      .get('/floor/listing')
      .query({ location: place, time_range: decade })
      .set(FLOOR_ACCOUNT_HEADER, ACCOUNT);

    expect(answer.status).toBe(200);
    expect(answer.body.events.map((event: { id: string }) => event.id)).toEqual(
      listed?.events.slice(0, 100).map((event) => event.id),
    );
    expect(answer.body.events).toHaveLength(100);
  });

  async function versionOf(accountId: string): Promise<bigint> {
    const { rows } = await pool.query<{ version: string }>(
      'SELECT version::text AS version FROM travellers WHERE account_id = $1',
      [accountId],
    );
    return BigInt(rows[0]?.version ?? '-1');
  }
});
