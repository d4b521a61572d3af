import { Client } from 'pg';
import { textDigest } from '../../src/infrastructure/persistence/postgres/text-digest';
import { call, signUp } from './service';

export const SEEDED_EVENTS = 1_000_000;
/** Places the million events are spread over: a monitored place holds 1,000 of them, over a century. */
export const PLACES = 1_000;
export const MONITORED_PLACE = 'Observatory 417';
export const MONITORED_RANGE = '1950-01-01T00:00:00Z/1960-01-01T00:00:00Z';

/** A fresh, empty database for this run; the service migrates it when it starts. */
export async function createBenchDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Statistics of every table, as autovacuum would have them a minute after the seed: a run starts
 * sooner, and without them a build whose migrations never analysed plans on the planner's guesses
 * where another plans on the tables' true sizes.
 */
export async function analyzeDatabase(databaseUrl: string): Promise<void> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query('ANALYZE');
  } finally {
    await db.end();
  }
}

/**
 * Gives an account a million events (or as many as asked) on the timeline it is on, as the service
 * would have recorded them (same columns, same search digests), written by one INSERT ... SELECT so
 * the seed takes seconds, not the hours a million API calls would.
 */
export async function seedEvents(
  databaseUrl: string,
  accountId: string,
  { events = SEEDED_EVENTS, checkpoint = true }: { events?: number; checkpoint?: boolean } = {},
): Promise<void> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ timeline_id: string }>(
      'SELECT timeline_id FROM travellers WHERE account_id = $1',
      [accountId],
    );
    const places = Array.from({ length: PLACES }, (_, n) => `Observatory ${n}`);
    await db.query(
      `INSERT INTO events (account_id, id, timeline_id, kind, time, original_time, description, location,
                           description_key, location_key, subject_id, recorded_at, revision)
       SELECT $1, 'evt_' || lpad(to_hex(n), 32, '0'), $2, 'arrival',
              timestamptz '1900-01-01 00:00:00Z' + (n * interval '53 minutes'),
              timestamptz '1900-01-01 00:00:00Z' + (n * interval '53 minutes'),
              'Sighting ' || n, ($3::text[])[1 + n % $5],
              -- textDigest of 'Sighting <n>': its textKey is the name lower-cased (no spaces to fold).
              encode(sha256(convert_to('sighting ' || n, 'UTF8')), 'hex'), ($4::text[])[1 + n % $5], NULL, now(), 0
         FROM generate_series(1, $6::int) AS n`,
      [accountId, rows[0].timeline_id, places, places.map(textDigest), PLACES, events],
    );
    await db.query('VACUUM ANALYZE events');
    // The seed's gigabyte of WAL would otherwise be flushed by a checkpoint during the first loads.
    if (checkpoint)
      await db.query('CHECKPOINT').catch((error: unknown) => {
        console.error(
          `CHECKPOINT after the seed failed (${String(error)}): the first loads may run during the checkpoint.`,
        );
      });
  } finally {
    await db.end();
  }
}

/** Manipulated events of the crowded timeline of the paradox loads. */
export const DISPLACED_EVENTS = 10_000;
/** A range holding every one of them, by current and by original time. */
export const PARADOX_RANGE = '1800-01-01T00:00:00Z/1830-01-01T00:00:00Z';

/**
 * An account of its own with two timelines for the paradox loads: one empty, one crowded with
 * DISPLACED_EVENTS displaced events.
 */
export async function paradoxTimelines(url: string, databaseUrl: string, who: string) {
  const checker = await signUp(url, who);
  const timelineOf = async (name: string) =>
    String(
      (await call(url, checker.auth, 'POST', '/v1/timelines', { name, destination_time: '1815-06-18T11:00:00Z' })).id,
    );
  const empty = await timelineOf('Quiet timeline');
  const crowded = await timelineOf('Crowded timeline');
  console.error('seeding 10,000 displaced events ...');
  await seedDisplacedEvents(databaseUrl, checker.id, crowded);
  return { checker, empty, crowded };
}

/**
 * Gives a timeline `events` item retrievals, each moved by manipulation an hour from when it first
 * happened (displaced: every one a reason a paradox check finds), as the service would have left
 * them, by one INSERT ... SELECT.
 */
export async function seedDisplacedEvents(
  databaseUrl: string,
  accountId: string,
  timelineId: string,
  events = DISPLACED_EVENTS,
): Promise<void> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query(
      `INSERT INTO events (account_id, id, timeline_id, kind, time, original_time, description, location,
                           description_key, location_key, subject_id, recorded_at, revision)
       SELECT $1, 'evt_relic_' || n, $2, 'item_retrieved',
              timestamptz '1815-01-01 00:00:00Z' + (n * interval '7 hours') + interval '1 hour',
              timestamptz '1815-01-01 00:00:00Z' + (n * interval '7 hours'),
              'Item retrieved: relic ' || n, 'Waterloo',
              encode(sha256(convert_to('item retrieved: relic ' || n, 'UTF8')), 'hex'), $3, 'itm_' || n, now(), 1
         FROM generate_series(1, $4::int) AS n`,
      [accountId, timelineId, textDigest('Waterloo'), events],
    );
    await db.query('VACUUM ANALYZE events');
  } finally {
    await db.end();
  }
}
