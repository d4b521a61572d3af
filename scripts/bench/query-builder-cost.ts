// `npm run bench:query-builder`: the service's two hottest statements (the event listing and the
// optimistic guarded write), each as the service sends it today (text through the SqlRunner on the
// node-postgres pool) and as a Kysely query typed by the `DB` type prisma-kysely generates from
// prisma/schema.prisma: compiled per request, compiled once, or run by Kysely's own PostgresDialect
// on the same pool. It checks that each form answers the same rows with the same plan, then prints
// the CPU each costs the service's process per statement, in alternating rounds
// (docs/decisions.md#typed-sql-beside-prisma-client).
//
// `--only <variant> --iterations <n> --reuse` runs one variant (or one builder) alone on the database a full run left
// behind, one statement at a time, for an instruction count under `valgrind --tool=callgrind`.
import 'reflect-metadata';
import { isDeepStrictEqual } from 'node:util';
import { type CompiledQuery, type Expression, Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import { Pool } from 'pg';
import { PoolSqlRunner } from '../../src/infrastructure/database/pool-sql-runner';
import { migrateDatabase } from '../../src/infrastructure/database/migrate-database';
import type { DB } from '../../src/infrastructure/persistence/kysely/generated/types';
import { WriteSet } from '../../src/infrastructure/persistence/prisma/optimistic/write-statement';
import { eventRow, LISTINGS } from '../../src/infrastructure/persistence/prisma/repositories/prisma-event-repository';
import type { SqlRunner } from '../../src/infrastructure/persistence/prisma/sql-runner';
import { ANCHORS, EVENTS } from '../../src/infrastructure/persistence/prisma/tables';
import { textDigest } from '../../src/infrastructure/persistence/prisma/text-digest';
import type { TimelineEvent } from '../../src/core/domain/timeline-event';
import { createBenchDatabase } from './seed';

const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const DATABASE = 'time_navigation_query_builder';
const CONCURRENCY = 10;
const OPERATIONS = 2_000;
const ROUNDS = 5;
const EVENTS_SEEDED = 100_000;
const PLACES = 100;
const PLACE = 'Observatory 7';
const RANGE = { start: new Date('1900-01-01T00:00:00Z'), end: new Date('2100-01-01T00:00:00Z') };
/** The listing's default page of 100, read with one more to tell whether a next page exists. */
const PAGE = 101;
const READER = 'qb_reader';
const writerOf = (lane: number) => `qb_writer_${lane}`;

interface Listing {
  readonly accountId: string;
  readonly placeKey: string;
  readonly start: Date;
  readonly end: Date;
  readonly limit: number;
}

/** Each input of a statement as an expression: a value sent per request, or a slot filled later. */
type Operands<T> = { readonly [K in keyof T]: Expression<T[K]> };

const operands = (p: Listing): Operands<Listing> => ({
  accountId: sql.val(p.accountId),
  placeKey: sql.val(p.placeKey),
  start: sql.val(p.start),
  end: sql.val(p.end),
  limit: sql.val(p.limit),
});

/** A parameter of a statement compiled once, named by its input; a request's values fill it. */
class Slot {
  constructor(readonly key: keyof Listing) {}
}
const slot = <K extends keyof Listing>(key: K) => sql<Listing[K]>`${new Slot(key)}`;
const SLOTS: Operands<Listing> = {
  accountId: slot('accountId'),
  placeKey: slot('placeKey'),
  start: slot('start'),
  end: slot('end'),
  limit: slot('limit'),
};
const fill = (compiled: CompiledQuery, p: Listing): unknown[] =>
  compiled.parameters.map((parameter) => (parameter instanceof Slot ? p[parameter.key] : parameter));

const LISTING: Listing = { accountId: READER, placeKey: textDigest(PLACE), ...RANGE, limit: PAGE };
const listingValues = (p: Listing): unknown[] => [p.accountId, p.placeKey, p.start, p.end, p.limit];

/**
 * The listing by the traveller's timeline, first page (LISTINGS[0]) in Kysely: two ordered index
 * ranges merged, then one row naming the timeline read. The same columns under the same names.
 */
function kyselyListing(db: Kysely<DB> | Transaction<DB>, p: Operands<Listing>) {
  return db
    .with('here', (q) => q.selectFrom('travellers').select('timeline_id').where('account_id', '=', p.accountId))
    .selectFrom((from) => {
      const matching = (condition: 'place' | 'name') =>
        from
          .selectFrom('events')
          .select([
            sql<string | null>`NULL`.as('readFrom'),
            'id',
            'kind',
            'time',
            'original_time as originalTime',
            'description',
            'location',
            'subject_id as subjectId',
            'recorded_at as recordedAt',
            'revision',
          ])
          .where('account_id', '=', p.accountId)
          .where('timeline_id', '=', (eb) => eb.selectFrom('here').select('timeline_id'))
          .where((eb) =>
            condition === 'place'
              ? eb('location_key', '=', p.placeKey)
              : eb.and([eb('description_key', '=', p.placeKey), eb('location_key', '<>', p.placeKey)]),
          )
          .where('time', '>=', p.start)
          .where('time', '<=', p.end)
          .orderBy('time')
          .orderBy('id')
          .limit(p.limit);
      // Kysely writes a set operation's operands without parentheses, so an operand's ORDER BY and
      // LIMIT would apply to the whole: each operand is a subquery of its own.
      return from
        .selectFrom(matching('place').as('by_place'))
        .selectAll()
        .unionAll(from.selectFrom(matching('name').as('by_name')).selectAll())
        .orderBy('time')
        .orderBy('id')
        .limit(p.limit)
        .as('page');
    })
    .selectAll()
    .unionAll((eb) =>
      // Kysely's set operations take operands of one row type: the NULLs claim the event columns' types.
      eb
        .selectFrom('here')
        .select([
          'timeline_id as readFrom',
          sql<string>`NULL`.as('id'),
          sql<string>`NULL`.as('kind'),
          sql<Date>`NULL`.as('time'),
          sql<Date>`NULL`.as('originalTime'),
          sql<string>`NULL`.as('description'),
          sql<string>`NULL`.as('location'),
          sql<string | null>`NULL`.as('subjectId'),
          sql<Date>`NULL`.as('recordedAt'),
          sql<number>`NULL`.as('revision'),
        ]),
    )
    .orderBy('time')
    .orderBy('id');
}

/** What create-anchor writes: an anchor and its `anchor_set` event, guarded by the traveller's version. */
interface AnchorWrite {
  readonly accountId: string;
  readonly version: string;
  readonly anchor: {
    accountId: string;
    id: string;
    timestamp: Date;
    description: string;
    timelineId: string;
    location: string;
    createdAt: Date;
  };
  readonly event: TimelineEvent;
}

function textWrite(write: AnchorWrite): { sql: string; values: unknown[] } {
  const writes = new WriteSet();
  writes.insert(ANCHORS, write.anchor);
  writes.insert(EVENTS, eventRow(write.event));
  return writes.statement(write.accountId, write.version, null);
}

/** The write's values in the order of both texts: the guard's, the anchor's columns, the event's. */
function writeValues({ accountId, version, anchor, event }: AnchorWrite): unknown[] {
  const row = eventRow(event);
  return [
    accountId,
    version,
    anchor.accountId,
    anchor.id,
    anchor.timestamp,
    anchor.description,
    anchor.timelineId,
    anchor.location,
    anchor.createdAt,
    row.accountId,
    row.id,
    row.timelineId,
    row.kind,
    row.time,
    row.originalTime,
    row.description,
    row.location,
    row.descriptionKey,
    row.locationKey,
    row.subjectId,
    row.recordedAt,
    row.revision,
  ];
}

/** The same statement in Kysely: the guard as the first CTE, each insert selecting from it. */
function kyselyWrite(db: Kysely<DB> | Transaction<DB>, write: AnchorWrite) {
  const { anchor, event } = write;
  const text = (value: string | null) => sql<string>`${value}::text`;
  const instant = (value: Date) => sql<Date>`${value}::timestamptz`;
  const row = eventRow(event);
  return db
    .with('guard', (q) =>
      q
        .updateTable('travellers')
        .set({ version: sql<string>`version + 1` })
        .where('account_id', '=', text(write.accountId))
        .where('version', '=', sql<string>`${write.version}::bigint`)
        .returning('version'),
    )
    .with('w0', (q) =>
      q
        .insertInto('anchors')
        .columns(['account_id', 'id', 'timestamp', 'description', 'timeline_id', 'location', 'created_at'])
        .expression((eb) =>
          eb
            .selectFrom('guard')
            .select([
              text(anchor.accountId).as('account_id'),
              text(anchor.id).as('id'),
              instant(anchor.timestamp).as('timestamp'),
              text(anchor.description).as('description'),
              text(anchor.timelineId).as('timeline_id'),
              text(anchor.location).as('location'),
              instant(anchor.createdAt).as('created_at'),
            ]),
        ),
    )
    .with('w1', (q) =>
      q
        .insertInto('events')
        .columns([
          'account_id',
          'id',
          'timeline_id',
          'kind',
          'time',
          'original_time',
          'description',
          'location',
          'description_key',
          'location_key',
          'subject_id',
          'recorded_at',
          'revision',
        ])
        .expression((eb) =>
          eb
            .selectFrom('guard')
            .select([
              text(row.accountId).as('account_id'),
              text(row.id).as('id'),
              text(row.timelineId).as('timeline_id'),
              text(row.kind).as('kind'),
              instant(row.time).as('time'),
              instant(row.originalTime).as('original_time'),
              text(row.description).as('description'),
              text(row.location).as('location'),
              text(row.descriptionKey).as('description_key'),
              text(row.locationKey).as('location_key'),
              text(row.subjectId).as('subject_id'),
              instant(row.recordedAt).as('recorded_at'),
              sql<number>`${row.revision}::int`.as('revision'),
            ]),
        ),
    )
    .selectFrom('guard')
    .select(sql<string>`version::text`.as('version'));
}

/** One writer per lane, each with its own traveller, whose version each applied write moves on. */
class Writers {
  private readonly versions = Array.from({ length: CONCURRENCY }, () => '0');
  private serial = 0;

  next(lane: number): AnchorWrite {
    this.serial += 1;
    const accountId = writerOf(lane);
    const now = new Date(Date.UTC(2026, 0, 1) + this.serial);
    const id = `anc_${process.pid}_${this.serial}`;
    const anchor = {
      accountId,
      id,
      timestamp: now,
      description: `Anchor ${this.serial}`,
      timelineId: `tl_${accountId}`,
      location: 'Lab',
      createdAt: now,
    };
    const event: TimelineEvent = {
      accountId,
      id: `evt_${process.pid}_${this.serial}`,
      timelineId: anchor.timelineId,
      kind: 'anchor_set',
      time: now,
      originalTime: now,
      description: anchor.description,
      location: 'Lab',
      subjectId: id,
      recordedAt: now,
      revision: 0,
    };
    return { accountId, version: this.versions[lane] ?? '0', anchor, event };
  }

  applied(lane: number, rows: Array<{ version: string }>): void {
    const [moved] = rows;
    if (!moved) throw new Error(`the guarded write of lane ${lane} found another version`);
    this.versions[lane] = moved.version;
  }

  async resume(pool: Pool): Promise<void> {
    const { rows } = await pool.query<{ account_id: string; version: string }>(
      'SELECT account_id, version::text AS version FROM travellers WHERE account_id LIKE $1',
      ['qb_writer_%'],
    );
    for (const { account_id, version } of rows) this.versions[Number(account_id.slice('qb_writer_'.length))] = version;
  }
}

type Variant = (lane: number) => Promise<unknown>;

function variants(runner: SqlRunner, kysely: Kysely<DB>, writers: Writers): Record<string, Variant> {
  const listingOnce = kyselyListing(kysely, operands(LISTING)).compile();
  const listingTemplate = kyselyListing(kysely, SLOTS).compile();
  const onceWrite = kyselyWrite(kysely, writers.next(0)).compile().sql;
  // Kysely numbers every occurrence of a value: the compiled-once text takes its values in that order.
  const reuse = (compiled: CompiledQuery, values: readonly unknown[]) => runner.query(compiled.sql, values);
  const listingOnceValues = listingOnce.parameters;
  const write = async (lane: number, send: (w: AnchorWrite) => Promise<Array<{ version: string }>>) =>
    writers.applied(lane, await send(writers.next(lane)));
  return {
    'listing: text, runner (today)': () => runner.query(LISTINGS[0], listingValues(LISTING)),
    'listing: Kysely compiled per request, runner': () => {
      const compiled = kyselyListing(kysely, operands(LISTING)).compile();
      return runner.query(compiled.sql, compiled.parameters);
    },
    'listing: Kysely compiled once, runner': () => reuse(listingOnce, listingOnceValues),
    'listing: Kysely compiled once, values by slot, runner': () =>
      runner.query(listingTemplate.sql, fill(listingTemplate, LISTING)),
    'listing: Kysely PostgresDialect': () => kyselyListing(kysely, operands(LISTING)).execute(),
    'listing in a transaction: text, runner (today)': () =>
      runner.transaction((tx) => tx.query(LISTINGS[0], listingValues(LISTING))),
    'listing in a transaction: Kysely per request, runner': () =>
      runner.transaction((tx) => {
        const compiled = kyselyListing(kysely, operands(LISTING)).compile();
        return tx.query(compiled.sql, compiled.parameters);
      }),
    'listing in a transaction: Kysely PostgresDialect': () =>
      kysely.transaction().execute((trx) => kyselyListing(trx, operands(LISTING)).execute()),
    'write: text, runner (today)': (lane) =>
      write(lane, (w) => {
        const statement = textWrite(w);
        return runner.query(statement.sql, statement.values);
      }),
    'write: Kysely compiled per request, runner': (lane) =>
      write(lane, (w) => {
        const compiled = kyselyWrite(kysely, w).compile();
        return runner.query(compiled.sql, compiled.parameters);
      }),
    'write: Kysely compiled once, runner': (lane) => write(lane, (w) => runner.query(onceWrite, writeValues(w))),
    'write: Kysely PostgresDialect': (lane) => write(lane, (w) => kyselyWrite(kysely, w).execute()),
  };
}

/** What building each statement costs alone, with no database: µs per statement. */
function builderCosts(kysely: Kysely<DB>, writers: Writers): Record<string, () => unknown> {
  return {
    'build listing: text (today)': () => [LISTINGS[0], listingValues(LISTING)],
    'build listing: Kysely compile': () => kyselyListing(kysely, operands(LISTING)).compile(),
    'build write: WriteSet (today)': () => textWrite(writers.next(0)),
    'build write: Kysely compile': () => kyselyWrite(kysely, writers.next(0)).compile(),
  };
}

async function cpuPerOperation(variant: Variant, operations: number): Promise<number> {
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, lane) => {
      for (let n = 0; n < operations / CONCURRENCY; n++) await variant(lane);
    }),
  );
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / operations;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function seed(pool: Pool): Promise<void> {
  const accounts = [READER, ...Array.from({ length: CONCURRENCY }, (_, lane) => writerOf(lane))];
  for (const account of accounts) {
    await pool.query(
      "INSERT INTO accounts (id, email, password_hash, created_at) VALUES ($1, $1 || '@qb', 'x', now())",
      [account],
    );
    await pool.query(
      `INSERT INTO timelines (account_id, id, name, created_at, status)
       VALUES ($1, 'tl_' || $1, 'primary', now(), 'active')`,
      [account],
    );
    await pool.query(
      `INSERT INTO travellers (account_id, clock_reading, clock_read_at, clock_paused, timeline_id, location)
       VALUES ($1, now(), now(), true, 'tl_' || $1, 'Lab')`,
      [account],
    );
  }
  const places = Array.from({ length: PLACES }, (_, n) => `Observatory ${n}`);
  await pool.query(
    `INSERT INTO events (account_id, id, timeline_id, kind, time, original_time, description, location,
                         description_key, location_key, subject_id, recorded_at, revision)
     SELECT $1, 'evt_' || lpad(to_hex(n), 32, '0'), 'tl_' || $1, 'arrival',
            timestamptz '1900-01-01 00:00:00Z' + (n * interval '9 hours'),
            timestamptz '1900-01-01 00:00:00Z' + (n * interval '9 hours'),
            'Sighting ' || n, ($2::text[])[1 + n % $4],
            encode(sha256(convert_to('sighting ' || n, 'UTF8')), 'hex'), ($3::text[])[1 + n % $4], NULL, now(), 0
       FROM generate_series(1, $5::int) AS n`,
    [READER, places, places.map(textDigest), PLACES, EVENTS_SEEDED],
  );
  await pool.query('VACUUM ANALYZE');
}

/** The plan PostgreSQL runs for a statement with its values, without the costs that vary. */
async function plan(pool: Pool, text: string, values: readonly unknown[]): Promise<string> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${text}`, [
      ...values.map((value) => (value instanceof Date ? value.toISOString() : value)),
    ]);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

/** Prints whether each form answers the same rows with the same plan, and the texts themselves. */
async function sameResults(pool: Pool, runner: SqlRunner, kysely: Kysely<DB>, writers: Writers): Promise<void> {
  const today = await runner.query(LISTINGS[0], listingValues(LISTING));
  const compiled = kyselyListing(kysely, operands(LISTING)).compile();
  const template = kyselyListing(kysely, SLOTS).compile();
  const same = (rows: unknown[]) => isDeepStrictEqual(today, rows);
  const write = writers.next(0);
  const text = textWrite(write);
  const built = kyselyWrite(kysely, write).compile();
  const checks = {
    'listing: rows of the page and the timeline row': today.length,
    'listing: Kysely through the runner, the same rows': same(await runner.query(compiled.sql, compiled.parameters)),
    'listing: compiled once with slots, the same text': template.sql === compiled.sql,
    'listing: compiled once with slots, the same rows': same(await runner.query(template.sql, fill(template, LISTING))),
    'listing: PostgresDialect, the same rows': same(await kyselyListing(kysely, operands(LISTING)).execute()),
    'listing: the same plan': await samePlan(pool, [LISTINGS[0], listingValues(LISTING)], compiled),
    'write: the same values': isDeepStrictEqual(text.values.map(String), built.parameters.map(String)),
    'write: the same plan': await samePlan(pool, [text.sql, text.values], built),
  };
  for (const [check, answer] of Object.entries(checks)) console.log(`${check}: ${String(answer)}`);
  console.log(`\nlisting, today (${LISTINGS[0].length} characters):${LISTINGS[0]}`);
  console.log(`\nlisting, Kysely (${compiled.sql.length} characters, ${compiled.parameters.length} values):`);
  console.log(compiled.sql);
  console.log(`\nwrite, today (${text.sql.length} characters):\n${text.sql}`);
  console.log(`\nwrite, Kysely (${built.sql.length} characters):\n${built.sql}\n`);
}

async function samePlan(
  pool: Pool,
  [text, values]: [string, readonly unknown[]],
  built: CompiledQuery,
): Promise<boolean> {
  const plans = [await plan(pool, text, values), await plan(pool, built.sql, built.parameters)];
  if (plans[0] !== plans[1]) console.log(`plan of the text:\n${plans[0]}\nplan of Kysely's:\n${plans[1]}`);
  return plans[0] === plans[1];
}

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? undefined : process.argv[at + 1];
}

async function main(): Promise<void> {
  const reuse = process.argv.includes('--reuse');
  const url = new URL(ADMIN_URL);
  url.pathname = `/${DATABASE}`;
  const databaseUrl = reuse ? url.toString() : await createBenchDatabase(ADMIN_URL, DATABASE);
  if (!reuse) await migrateDatabase(databaseUrl);
  // As the service's pool: UTC sessions (prisma-client.ts), statements prepared by name on each connection.
  const pool = new Pool({ connectionString: databaseUrl, max: CONCURRENCY, options: '-c TimeZone=UTC' });
  const runner = new PoolSqlRunner(pool, true);
  const kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  const writers = new Writers();
  try {
    if (!reuse) await seed(pool);
    await writers.resume(pool);
    const all = variants(runner, kysely, writers);
    const builders = builderCosts(kysely, writers);
    const only = option('only');
    if (only !== undefined) {
      const iterations = Number(option('iterations') ?? '1000');
      const variant = all[only];
      const build = builders[only];
      if (variant) for (let n = 0; n < iterations; n++) await variant(n % CONCURRENCY);
      else if (build) for (let n = 0; n < iterations; n++) build();
      else throw new Error(`no variant '${only}': ${[...Object.keys(all), ...Object.keys(builders)].join(', ')}`);
      return;
    }
    await sameResults(pool, runner, kysely, writers);
    const statementCpu = new Map<string, number[]>();
    const buildCpu = new Map<string, number[]>();
    for (const variant of Object.values(all)) await cpuPerOperation(variant, 500);
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts with another variant, so drift on a shared machine spreads over all of them.
      const names = Object.keys(all);
      const order = [...names.slice(round % names.length), ...names.slice(0, round % names.length)];
      for (const name of order) {
        const variant = all[name];
        if (variant)
          statementCpu.set(name, [...(statementCpu.get(name) ?? []), await cpuPerOperation(variant, OPERATIONS)]);
      }
      for (const [name, build] of Object.entries(builders)) {
        const cpu = process.cpuUsage();
        for (let n = 0; n < 20_000; n++) build();
        const used = process.cpuUsage(cpu);
        buildCpu.set(name, [...(buildCpu.get(name) ?? []), (used.user + used.system) / 20_000]);
      }
    }
    console.log(`| statement | CPU µs per statement, median of ${ROUNDS} rounds | rounds |\n|---|---:|---|`);
    for (const [name, values] of statementCpu)
      console.log(`| ${name} | ${median(values).toFixed(0)} | ${values.map((v) => v.toFixed(0)).join(', ')} |`);
    console.log(`\n| building alone, no database | CPU µs per statement, median | rounds |\n|---|---:|---|`);
    for (const [name, values] of buildCpu)
      console.log(`| ${name} | ${median(values).toFixed(1)} | ${values.map((v) => v.toFixed(1)).join(', ')} |`);
  } finally {
    await kysely.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
