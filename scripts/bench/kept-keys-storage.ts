// `npm run bench:kept-keys`: what one account's Idempotency-Keys can keep at most, measured on
// PostgreSQL (docs/decisions.md, "Idempotency-Key"). One account sends keyed requests through the
// service's own admission, store and counters (AnswerKeyedRequest over PostgresIdempotencyStore)
// until its hourly bound refuses them, hour after hour, with every key 255 characters long and
// answers that spend both bounds together; then the table's size on disk (heap, TOAST, indexes).
// HOURS (default 25: a day's keys and the hour they overlap) and SHAPE (`even`: every answer the
// same length, kept in the row; `long`: a thousand answers of nearly 64 KiB, in TOAST, then short
// ones) choose the load. Takes a database of its own on DATABASE_URL's server.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { MAX_KEPT_ANSWER_BYTES, type StoredResponse } from '../../src/core/ports/idempotency-store';
import { AnswerKeyedRequest } from '../../src/core/use-cases/idempotency/answer-keyed-request';
import {
  DEFAULT_KEPT_MIB_PER_HOUR,
  DEFAULT_KEYS_PER_HOUR,
  KeptAnswers,
} from '../../src/core/use-cases/idempotency/kept-answers';
import { CountRequest } from '../../src/core/use-cases/rate-limiting/count-request';
import { migrateDatabase } from '../../src/infrastructure/database/migrations/migrate-database';
import { createDatabaseClients } from '../../src/infrastructure/database/driver/prisma-client';
import { PostgresIdempotencyStore } from '../../src/infrastructure/persistence/postgres/idempotency-store';
import { PostgresRateCounterStore } from '../../src/infrastructure/persistence/postgres/rate-counter-store';
import { KeyedRequests } from '../../src/infrastructure/persistence/postgres/unit-of-work/keyed-requests';
import { JSON_CONTENT_TYPE } from '../../src/interfaces/http/send-answer';
import { createBenchDatabase } from './seed';

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const HOURS = Number(process.env.HOURS ?? 25);
const SHAPE = process.env.SHAPE === 'long' ? 'long' : 'even';
const MIB = 1024 * 1024;
const HOUR_MS = 3_600_000;
/** Requests of the account under way at once, as ACCOUNT_REQUESTS_RUNNING lets it run them. */
const AT_ONCE = 8;
const ACCOUNT_ID = `acc_${randomBytes(16).toString('hex')}`;
const LONG_ANSWERS = 1_000;

/**
 * The body of the account's `n`th answer of an hour, as JSON text of a chosen length: random, as
 * PostgreSQL cannot compress it. `even`: what the bytes allow each of the keys, short of the last
 * 64 KiB that admission holds back; `long`: first the longest kept, then what is left spread out.
 */
function answerLength(n: number): number {
  const bytes = DEFAULT_KEPT_MIB_PER_HOUR * MIB - MAX_KEPT_ANSWER_BYTES;
  if (SHAPE === 'even') return Math.floor(bytes / DEFAULT_KEYS_PER_HOUR);
  const longest = MAX_KEPT_ANSWER_BYTES - 64;
  if (n < LONG_ANSWERS) return longest;
  return Math.max(2, Math.floor((bytes - LONG_ANSWERS * longest) / (DEFAULT_KEYS_PER_HOUR - LONG_ANSWERS)));
}

function answer(n: number): StoredResponse {
  // A JSON string of `length` bytes: its quotes and base64url text.
  const text = randomBytes(answerLength(n))
    .toString('base64url')
    .slice(0, answerLength(n) - 2);
  return {
    status: 201,
    body: text,
    headers: { 'content-type': JSON_CONTENT_TYPE, location: `/v1/anchors/anc_${randomBytes(16).toString('hex')}` },
  };
}

/** A key of the longest kind, 255 printable characters, unique to the request. */
function keyOf(hour: number, n: number): string {
  return `${hour}-${n}-`.padEnd(255, 'k');
}

async function main(): Promise<void> {
  const url = await createBenchDatabase(ADMIN_URL, 'time_navigation_kept_keys');
  await migrateDatabase(url);
  // Summing a day's answers reads the whole table: longer than the service's statements may take.
  const { prisma, sql } = createDatabaseClients(url, { maxConnections: AT_ONCE, timeoutMs: 600_000 });
  // The first hour's keys made at its end and the last hour's at its start: all 25 are kept at once.
  const start = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
  let now = start;
  const clock = { now: () => new Date(now) };
  const store = new PostgresIdempotencyStore(prisma, sql, new KeyedRequests(sql), clock);
  const keptAnswers = new KeptAnswers(new CountRequest(new PostgresRateCounterStore(prisma, sql), clock));
  const answerKeyed = new AnswerKeyedRequest(store, keptAnswers);
  console.log(`shape ${SHAPE}; bounds ${DEFAULT_KEYS_PER_HOUR} keys, ${DEFAULT_KEPT_MIB_PER_HOUR} MiB an hour`);
  console.log('| hours | rows | kept answers (MiB) | table (MiB) | TOAST (MiB) | indexes (MiB) | total (MiB) |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  for (let hour = 0; hour < HOURS; hour += 1) {
    now = start + hour * HOUR_MS + (hour === 0 ? HOUR_MS - 60_000 : 0);
    let next = 0;
    let refused = false;
    const sender = async () => {
      while (!refused) {
        const n = next++;
        const outcome = await answerKeyed.execute({
          accountId: ACCOUNT_ID,
          key: keyOf(hour, n),
          requestDigest: randomBytes(32).toString('hex'),
          produce: async () => answer(n),
        });
        if (outcome.outcome === 'quota-exceeded') refused = true;
        else if (outcome.outcome !== 'answered') throw new Error(`request ${n} of hour ${hour}: ${outcome.outcome}`);
      }
    };
    await Promise.all(Array.from({ length: AT_ONCE }, sender));
    console.log(await sizes(prisma, hour + 1));
  }
  await prisma.$disconnect();
}

async function sizes(prisma: ReturnType<typeof createDatabaseClients>['prisma'], hours: number): Promise<string> {
  const [row] = await prisma.$queryRawUnsafe<
    { rows: bigint; kept: bigint; heap: bigint; toast: bigint; indexes: bigint; total: bigint }[]
  >(
    `SELECT (SELECT count(*) FROM idempotency_keys WHERE account_id = $1) AS rows,
            (SELECT COALESCE(sum(octet_length(response_body::text)), 0)
               FROM idempotency_keys WHERE account_id = $1) AS kept,
            pg_relation_size('idempotency_keys') AS heap,
            COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0) AS toast,
            pg_indexes_size('idempotency_keys') AS indexes,
            pg_total_relation_size('idempotency_keys') AS total
     FROM pg_class c WHERE c.oid = 'idempotency_keys'::regclass`,
    ACCOUNT_ID,
  );
  if (!row) throw new Error('no sizes');
  const mib = (value: bigint) => (Number(value) / MIB).toFixed(1);
  const columns = [hours, row.rows, mib(row.kept), mib(row.heap), mib(row.toast), mib(row.indexes), mib(row.total)];
  return `| ${columns.join(' | ')} |`;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
