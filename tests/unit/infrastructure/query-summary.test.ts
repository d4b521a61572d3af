// `db.query.summary`: the name of a statement's span and of its duration's series. It must name
// what the statement does and touches, and never carry a literal or a parameter.
import { QuerySummaries, querySummary } from '../../../src/infrastructure/database/driver/query-summary';

it.each([
  [
    'SELECT "public"."api_keys"."id" FROM "public"."api_keys" WHERE "public"."api_keys"."digest" = $1 LIMIT $2',
    'SELECT api_keys',
  ],
  ['insert into "events" ("id", "name") values ($1, $2) on conflict ("id") do update set "name" = $3', 'INSERT events'],
  ['select * from events e join timelines t on t.id = e.timeline_id for update', 'SELECT events timelines'],
  ['DELETE FROM public.idempotency_keys WHERE expires_at < $1', 'DELETE idempotency_keys'],
  // Common table expressions are the statement's own names, not tables.
  [
    'with "guard" as (update "travellers" set "version" = "version" + 1 returning "version") ' +
      'insert into "timelines" ("id") select $1 from "guard"',
    'UPDATE travellers INSERT timelines SELECT',
  ],
  // A function in FROM is not a table.
  ['select * from unnest($1::text[]) as t(id) join events e on e.id = t.id', 'SELECT events'],
  ["SET TIME ZONE 'UTC'; SET statement_timeout = 5000", 'SET'],
  ['BEGIN', 'BEGIN'],
  ['ANALYZE "timelines"', 'ANALYZE'],
  ['LISTEN "tns_key_changes"', 'LISTEN'],
  ['SELECT pg_notify($1, $2)', 'SELECT'],
  ['', 'OTHER'],
])('%s is summarised as %s', (text, summary) => {
  expect(querySummary(text)).toBe(summary);
});

it('never carries a literal of the text', () => {
  const summary = querySummary("SELECT id FROM accounts WHERE email = 'someone@example.com' AND note = 'secret'");
  expect(summary).toBe('SELECT accounts');
});

it('stays within 255 characters whatever the statement', () => {
  const tables = Array.from({ length: 100 }, (_, n) => `table_with_a_long_name_${n}`);
  const summary = querySummary(`SELECT * FROM ${tables.join(' JOIN ')}`);
  expect(summary.length).toBe(255);
  expect(summary.startsWith('SELECT table_with_a_long_name_0 table_with_a_long_name_1')).toBe(true);
});

it('keeps the summaries used lately once full, letting go of the least recently used', () => {
  const summaries = new QuerySummaries(2);
  summaries.summaryOf('SELECT * FROM accounts');
  summaries.summaryOf('SELECT * FROM events');
  // Used again: now the most recent.
  expect(summaries.summaryOf('SELECT * FROM accounts')).toBe('SELECT accounts');
  expect(summaries.summaryOf('SELECT * FROM timelines')).toBe('SELECT timelines');
  expect(
    ['SELECT * FROM accounts', 'SELECT * FROM events', 'SELECT * FROM timelines'].map((sql) => summaries.has(sql)),
  ).toEqual([true, false, true]);
});
