// docs/scaling.md, "Past one database": a request's statements each touch one account's rows, found
// by the account's key, which is what lets a distributed PostgreSQL (Citus) send each of them to one
// shard. Read off PostgreSQL's EXPLAIN for the statements of the busiest requests as the service
// builds them: the traveller's read, an anchor's guarded write (anchor, event, traveller's version),
// a timeline by id and an Idempotency-Key's claim. Every table they read is reached through an
// index condition on `account_id` equal to the request's account; a statement that only inserts
// carries the account in its rows.
// Needs a server (DATABASE_URL): the seed writes through a connection of its own.
import type { SqlRunner } from '../../../src/infrastructure/database/driver/sql-runner';
import { readStart } from '../../../src/infrastructure/persistence/postgres/repositories/traveller-repository';
import { keyClaim } from '../../../src/infrastructure/persistence/postgres/idempotency-store';
import { READ_KEY } from '../../../src/infrastructure/persistence/postgres/statements/idempotency-keys';
import { FIND_TIMELINE } from '../../../src/infrastructure/persistence/postgres/statements/timelines';
import { WriteSet } from '../../../src/infrastructure/persistence/postgres/unit-of-work/write-set';
import { anchorWrites } from '../../../scripts/bench/floors';
import { flatten, planOf, seededForPlans, type PlanNode } from '../../support/query-plan';

jest.setTimeout(60_000);

const ACCOUNT = 'acc_1';

interface Sent {
  readonly text: string;
  readonly values: readonly unknown[];
}

/** The scans of a plan, each with the condition that found its rows. */
function scans(plan: PlanNode): Array<{ table: string; condition: string }> {
  return flatten(plan)
    .filter((node) => node['Relation Name'] !== undefined && /Scan/.test(node['Node Type']))
    .map((node) => ({ table: node['Relation Name'] ?? '', condition: node['Index Cond'] ?? `(${node['Node Type']})` }));
}

describe("the plans of a request's statements", () => {
  let seeded: Awaited<ReturnType<typeof seededForPlans>>;
  let sent: Sent[];
  let recording: SqlRunner;

  beforeAll(async () => {
    seeded = await seededForPlans(ACCOUNT, 2_000);
    // A second account, so that a scan of every account's rows could not pass for one of one.
    await seeded.client.query(
      `INSERT INTO accounts (id, email, password_hash, created_at) VALUES ('acc_2', 'b@example.com', 'x', now())`,
    );
    // The tables a request reads hold a row or none here, and the migrations have analysed them: a
    // sequential scan is then the cheapest plan, and would hide which index a statement can take.
    // Off, the plan shows that index; a statement with none still scans every account's rows.
    await seeded.client.query('SET enable_seqscan = off');
  });
  afterAll(() => seeded.close());

  beforeEach(() => {
    sent = [];
    recording = {
      query: (text, values, options) => {
        sent.push({ text, values });
        return seeded.database.sql.query(text, values, options);
      },
    };
  });

  /** Each statement sent, planned for its own values, must reach only the account's rows by its key. */
  async function expectOneAccount(): Promise<void> {
    expect(sent.length).toBeGreaterThan(0);
    for (const statement of sent) {
      // Planned for its values, as PostgreSQL plans a statement sent unprepared: they appear as literals.
      const plan = await planOf(seeded.client, { ...statement, mode: 'force_custom_plan' });
      const found = scans(plan);
      for (const scan of found)
        expect({ ...scan, text: statement.text }).toEqual({
          table: scan.table,
          condition: expect.stringContaining(`(account_id = '${ACCOUNT}'::text)`) as string,
          text: statement.text,
        });
      // A statement that reads nothing (an insert, its conflict checked on the key) goes where the
      // account it carries goes.
      if (found.length === 0) {
        expect(statement.text).toMatch(/^(with "claim" as \()?insert into /);
        expect(statement.values).toContain(ACCOUNT);
      }
    }
  }

  it("the traveller's read and an anchor's guarded write", async () => {
    const known = await readStart(recording, ACCOUNT);
    if (!known) throw new Error('the seed made no traveller');
    // The anchor and its event, as the service collects them (and the anchors' floor writes them).
    const { writes } = anchorWrites(ACCOUNT, 'Plan');
    const applied = await writes.apply(recording, { guard: { accountId: ACCOUNT, version: known.version, set: null } });
    expect(applied.version).not.toBeNull();
    expect(sent).toHaveLength(2);
    await expectOneAccount();
  });

  it('a timeline by id', async () => {
    await FIND_TIMELINE.run(recording, { accountId: ACCOUNT, timelineId: 'primary' });
    await expectOneAccount();
  });

  it("a keyed anchor's write, a keyed answer alone, and a kept key's read", async () => {
    const known = await readStart(recording, ACCOUNT);
    if (!known) throw new Error('the seed made no traveller');
    const claim = (key: string) =>
      keyClaim({ accountId: ACCOUNT, key, requestDigest: 'x'.repeat(64) }, new Date(), {
        status: 201,
        body: '{}',
        headers: '{}',
      });
    const { writes } = anchorWrites(ACCOUNT, 'Plan keyed');
    const guard = { accountId: ACCOUNT, version: known.version, set: null };
    expect((await writes.apply(recording, { guard, claim: claim('plan-key') })).keyTaken).toBe(false);
    expect((await new WriteSet().apply(recording, { claim: claim('plan-answer') })).keyTaken).toBe(false);
    await READ_KEY.run(recording, { accountId: ACCOUNT, key: 'plan-key' });
    expect(sent).toHaveLength(4);
    await expectOneAccount();
  });
});
