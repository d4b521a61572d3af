import { Client } from 'pg';
import { plainRepositories } from './plain-repositories';
import { seedEvents } from '../../scripts/bench/seed';
import { aPausedTraveller } from './builders/traveller-builder';
import { thePrimaryTimeline } from './builders/timeline-builder';
import { givenAccounts } from './contracts/subject';
import { provisionTestDatabase, type TestDatabase } from './test-database';

/** A node of PostgreSQL's EXPLAIN (FORMAT JSON), with what the plan tests read of it. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  /** With `analyze`: the rows the node gave, per loop, and how many loops it ran. */
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

export function flatten(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(flatten)];
}

/**
 * A fresh database with one account, its traveller on the primary timeline, and `events` events
 * seeded as the benchmark seeds them (1,000 places), and a client of its own to EXPLAIN with.
 * Needs a server (DATABASE_URL): the seed writes through a connection of its own.
 */
export async function seededForPlans(
  accountId: string,
  events: number,
): Promise<{ database: TestDatabase; client: Client; close(): Promise<void> }> {
  const database = await provisionTestDatabase();
  const repos = plainRepositories(database);
  await givenAccounts(repos, accountId);
  await repos.travellers.add(aPausedTraveller(accountId, new Date('1969-07-20T20:17:40.000Z')));
  await repos.timelines.add(thePrimaryTimeline());
  // No checkpoint: the whole server's, while other test files run on it.
  await seedEvents(database.connectionString, accountId, { events, checkpoint: false });
  const client = new Client({ connectionString: database.connectionString });
  await client.connect();
  return {
    database,
    client,
    async close() {
      await client.end();
      await database.close();
    },
  };
}

/** A parameter as PostgreSQL's text input reads it: an array as an array literal of quoted elements. */
function textOf(value: unknown): string {
  if (Array.isArray(value))
    return `{${value.map((element) => `"${textOf(element).replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
  return value instanceof Date ? value.toISOString() : String(value);
}

/**
 * The plan PostgreSQL makes for `text` with `values`, prepared with `types` (inferred when
 * omitted, as for the service's own statements) under `plan_cache_mode` `mode`; with `analyze`,
 * run, with the rows each node gave.
 */
export async function planOf(
  client: Client,
  {
    text,
    values,
    types,
    mode,
    analyze = false,
  }: { text: string; values: readonly unknown[]; types?: readonly string[]; mode: string; analyze?: boolean },
): Promise<PlanNode> {
  const statement = `plan_${Math.random().toString(36).slice(2)}`;
  await client.query(`SET plan_cache_mode = ${mode}`);
  await client.query(`PREPARE ${statement}${types ? `(${types.join(', ')})` : ''} AS ${text}`);
  const literals = values.map((value) => (value === null ? 'NULL' : client.escapeLiteral(textOf(value)))).join(', ');
  const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `EXPLAIN (${analyze ? 'ANALYZE, ' : ''}FORMAT JSON) EXECUTE ${statement}(${literals})`,
  );
  await client.query(`DEALLOCATE ${statement}`);
  return rows[0]['QUERY PLAN'][0].Plan;
}
