// `npm run bench:transactions`: what one statement and one transaction cost the service's process
// through Prisma 7 (@prisma/adapter-pg) and through node-postgres alone, in CPU microseconds per
// operation (10 at a time, as a loaded service runs them). Runs on the database `npm run bench`
// leaves behind; it explains where the write path's time goes (docs/performance.md).
import 'reflect-metadata';
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from '../../src/infrastructure/database/driver/generated/client';

const URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/time_navigation_bench';
const OPERATIONS = 4_000;
const CONCURRENCY = 10;

async function cost(name: string, operation: () => Promise<unknown>): Promise<void> {
  for (let n = 0; n < 500; n++) await operation();
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let n = 0; n < OPERATIONS / CONCURRENCY; n++) await operation();
    }),
  );
  const used = process.cpuUsage(cpu);
  const wall = ((performance.now() - started) * 1000) / OPERATIONS;
  console.log(`| ${name} | ${((used.user + used.system) / OPERATIONS).toFixed(0)} | ${wall.toFixed(0)} |`);
}

async function main(): Promise<void> {
  const pool = new Pool({ connectionString: URL, max: CONCURRENCY });
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: URL, max: CONCURRENCY }) });
  const lookup = (accountId: string) => prisma.traveller.findUnique({ where: { accountId } });
  console.log('| operation | CPU µs per operation | wall µs per operation |\n|---|---:|---:|');
  await cost('node-postgres: one statement', () =>
    pool.query('SELECT * FROM travellers WHERE account_id = $1', ['acc_none']),
  );
  await cost('Prisma: one findUnique', () => lookup('acc_none'));
  await cost(
    'Prisma: one $queryRaw',
    () => prisma.$queryRaw`SELECT * FROM travellers WHERE account_id = ${'acc_none'}`,
  );
  await cost('node-postgres: BEGIN, 2 statements, COMMIT', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT * FROM travellers WHERE account_id = $1 FOR UPDATE', ['acc_none']);
      await client.query('SELECT * FROM travellers WHERE account_id = $1', ['acc_none']);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  });
  await cost('Prisma: interactive transaction, no statement', () => prisma.$transaction(async () => undefined));
  await cost('Prisma: interactive transaction, 2 statements', () =>
    prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT * FROM travellers WHERE account_id = ${'acc_none'} FOR UPDATE`;
      await tx.traveller.findUnique({ where: { accountId: 'acc_none' } });
    }),
  );
  await Promise.all([pool.end(), prisma.$disconnect()]);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
