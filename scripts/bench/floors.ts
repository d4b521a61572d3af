// Floors, not targets: what an Express app reaches on this machine when it does nothing but the
// database work of a benchmarked request, with the service's own statements (built by its own
// code) and no authentication, validation, rate limit, request log or domain model. A service
// that does the same database work does more around it, so a target above its floor cannot be met
// on the machine the floor was measured on (docs/performance.md).
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import type { Pool } from 'pg';
import type { Traveller } from '../../src/core/domain/traveller';
import { PoolSqlRunner } from '../../src/infrastructure/database/driver/pool-sql-runner';
import { keyClaim } from '../../src/infrastructure/persistence/postgres/idempotency-store';
import { sqlParameter } from '../../src/infrastructure/database/driver/sql-runner';
import { eventRow } from '../../src/infrastructure/persistence/postgres/repositories/event-repository';
import {
  readStart,
  travellerRow,
} from '../../src/infrastructure/persistence/postgres/repositories/traveller-repository';
import { EVERY_VERSION, LISTINGS } from '../../src/infrastructure/persistence/postgres/statements/event-listing';
import { FIND_TIMELINE } from '../../src/infrastructure/persistence/postgres/statements/timelines';
import { textDigest } from '../../src/infrastructure/persistence/postgres/text-digest';
import type { KnownTraveller } from '../../src/infrastructure/persistence/postgres/unit-of-work/known-travellers';
import type { Claim } from '../../src/infrastructure/persistence/postgres/unit-of-work/gated-statement';
import { WriteSet } from '../../src/infrastructure/persistence/postgres/unit-of-work/write-set';
import { requestDigest } from '../../src/interfaces/http/middleware/idempotency';
import { JSON_CONTENT_TYPE } from '../../src/interfaces/http/send-answer';
import { mountModelledFloors } from './modelled-floors';

/** The account a floor request acts for: named outright, since a floor checks no key. */
export const FLOOR_ACCOUNT_HEADER = 'x-floor-account';
/** The header a keyed write's floor takes its key from, as the service does. */
export const FLOOR_KEY_HEADER = 'idempotency-key';
/** The headers the service keeps with a JSON answer (middleware/idempotency.ts). */
const KEPT_HEADERS = JSON.stringify({ 'content-type': JSON_CONTENT_TYPE });
const PAGE_SIZE = 100;
const HOME = 'home';
const PRIMARY = 'primary';

export function mountFloors(app: Express, pool: Pool): void {
  // The traveller as this process last wrote it, as the service's optimistic writes keep it.
  const travellers = new Map<string, KnownTraveller>();
  const sql = new PoolSqlRunner(pool, true);

  /**
   * The service's guarded statement: applied if the traveller is still as last seen, else read again.
   * A keyed write's statement also claims its key with the answer (write-set.ts): it applies only
   * if the key is free.
   */
  const writeGuarded = async (
    accountId: string,
    writes: WriteSet,
    moved: (traveller: Traveller) => Traveller | null,
    claim?: Claim,
  ): Promise<'applied' | 'conflict' | 'key-taken'> => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const known = travellers.get(accountId) ?? (await readStart(sql, accountId));
      if (!known) throw new Error(`account ${accountId} has no traveller`);
      const traveller = moved(known.traveller);
      const set = traveller && travellerRow(traveller);
      const applied = await writes.apply(sql, { guard: { accountId, version: known.version, set }, claim });
      if (applied.keyTaken) return 'key-taken';
      if (applied.version !== null) {
        travellers.set(accountId, { version: applied.version, traveller: traveller ?? known.traveller });
        return 'applied';
      }
      travellers.delete(accountId);
    }
    return 'conflict';
  };

  app.post('/floor/anchor', async (req, res) => {
    const accountId = req.get(FLOOR_ACCOUNT_HEADER) ?? '';
    const { writes, answer } = anchorWrites(accountId, String((req.body as { description?: unknown }).description));
    if ((await writeGuarded(accountId, writes, () => null)) !== 'applied')
      return void res.status(409).json({ title: 'the traveller kept moving' });
    res.status(201).json(answer);
  });

  // A keyed anchor as the service writes one (idempotency-store.ts, unit-of-work/keyed-requests.ts):
  // the anchor's guarded statement, claiming the key with the answer kept for retries. Left out: the
  // service's sweep of expired keys, at most once a minute per process, which is no one request's work.
  app.post('/floor/anchor-keyed', async (req, res) => {
    const accountId = req.get(FLOOR_ACCOUNT_HEADER) ?? '';
    const key = req.get(FLOOR_KEY_HEADER) ?? '';
    const { writes, answer } = anchorWrites(accountId, String((req.body as { description?: unknown }).description));
    // Serialized once: the answer sent and the answer kept are the same text.
    const body = JSON.stringify(answer);
    const claim = keyClaim({ accountId, key, requestDigest: requestDigest(req) }, new Date(), {
      status: 201,
      body,
      headers: KEPT_HEADERS,
    });
    const outcome = await writeGuarded(accountId, writes, () => null, claim);
    if (outcome !== 'applied') return void res.status(409).json({ title: `the write ended in ${outcome}` });
    res.status(201).type('json').send(body);
  });

  app.post('/floor/fast-forward', async (req, res) => {
    const accountId = req.get(FLOOR_ACCOUNT_HEADER) ?? '';
    const now = new Date();
    let newTime = now;
    // A minute on, as the benchmark's body asks, by the domain's own clock arithmetic.
    const moved = (traveller: Traveller) => {
      const shifted = traveller.shiftBy(60_000, now);
      newTime = shifted.clock.currentTime(now);
      return shifted;
    };
    if ((await writeGuarded(accountId, new WriteSet(), moved)) !== 'applied')
      return void res.status(409).json({ title: 'the traveller kept moving' });
    res.json({ new_time: newTime });
  });

  app.get('/floor/listing', async (req, res) => {
    const accountId = req.get(FLOOR_ACCOUNT_HEADER) ?? '';
    const [start, end] = String(req.query.time_range).split('/');
    const values = LISTINGS.onTraveller.values({
      accountId,
      placeKey: textDigest(String(req.query.location)),
      start: new Date(String(start)),
      end: new Date(String(end)),
      limit: PAGE_SIZE + 1,
      upTo: EVERY_VERSION,
    });
    // PostgreSQL writes the page's JSON and the app passes it on: the least work a process can do
    // with the page (the service parses each row, maps it and writes the JSON itself).
    const { rows } = await pool.query<{ page: string }>({
      name: 'floor-listing',
      text: LISTING_AS_JSON,
      // Instants as the service's runner sends them (node-postgres' own way rounds the offset).
      values: values.map(sqlParameter),
    });
    res.type('json').send(`{"events":${rows[0]?.page ?? '[]'}}`);
  });

  app.get('/floor/timeline/:id', async (req, res) => {
    const accountId = req.get(FLOOR_ACCOUNT_HEADER) ?? '';
    // As for the listing, PostgreSQL writes the row's JSON and the app passes it on, with no row
    // parsed and nothing serialized here: the least work a process can do with the timeline (the
    // service parses the row, settles its status as of now and writes the JSON itself).
    const { rows } = await pool.query<{ timeline: string }>({
      name: 'floor-timeline',
      text: TIMELINE_AS_JSON,
      values: FIND_TIMELINE.values({ accountId, timelineId: req.params.id }),
    });
    const timeline = rows[0]?.timeline;
    if (timeline === undefined) return void res.status(404).json({ title: 'no such timeline' });
    res.type('json').send(timeline);
  });

  mountModelledFloors(app, sql, (req) => req.get(FLOOR_ACCOUNT_HEADER) ?? '');
}

/** The writes of an anchor set at the traveller's place and moment, as the service collects them, and its answer. */
export function anchorWrites(accountId: string, description: string) {
  const now = new Date();
  const time = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const id = `anc_${randomBytes(16).toString('hex')}`;
  const writes = new WriteSet();
  writes.insert('anchors', ['account_id', 'id'], {
    account_id: accountId,
    id,
    timestamp: time,
    description,
    timeline_id: PRIMARY,
    location: HOME,
    created_at: now,
  });
  writes.insert(
    'events',
    ['account_id', 'id'],
    eventRow({
      accountId,
      id: `evt_${randomBytes(16).toString('hex')}`,
      timelineId: PRIMARY,
      kind: 'anchor_set',
      time,
      originalTime: time,
      description: `Anchor set: ${description}`,
      location: HOME,
      subjectId: id,
      recordedAt: now,
      revision: 0,
    }),
  );
  const answer = { id, timestamp: time, description, timeline_id: PRIMARY, location: HOME, created_at: now };
  return { writes, answer };
}

// The page without its extra row (which tells the service another page follows) and without the
// row naming the timeline read (every listing ends with it: cut here by the limit on a full page,
// by the filter on a shorter one). json_agg takes the rows in the order the listing gives them.
const LISTING_AS_JSON = `SELECT coalesce(json_agg(listed) FILTER (WHERE listed.id IS NOT NULL), '[]')::text AS page
  FROM (${LISTINGS.onTraveller.text} LIMIT ${PAGE_SIZE}) listed`;

// The timeline as FIND_TIMELINE reads it, its columns named as the statement names them.
const TIMELINE_AS_JSON = `SELECT row_to_json(found)::text AS timeline FROM (${FIND_TIMELINE.text}) found`;
