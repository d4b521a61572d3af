// Statements through Prisma's client (the runner of a Prisma transaction, and of every repository
// built without the pool's runner): a transaction reports what PostgreSQL did with it.
import { prismaSql } from '../../../src/infrastructure/persistence/prisma/sql-runner';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

jest.setTimeout(30_000);

describe("statements through Prisma's client", () => {
  let database: TestDatabase;
  const probed = async () =>
    (await database.sql.query<{ id: number }>('SELECT id FROM prisma_transaction_probe ORDER BY id', [])).map(
      (row) => row.id,
    );

  beforeAll(async () => {
    database = await provisionTestDatabase();
    await database.sql.query('CREATE TABLE prisma_transaction_probe (id integer PRIMARY KEY)', []);
  });
  beforeEach(() => database.sql.query('DELETE FROM prisma_transaction_probe', []));
  afterAll(() => database?.close());

  it("commits the work's statements together and answers what the work answered", async () => {
    const answer = await prismaSql(database.prisma).transaction(async (sql) => {
      await sql.query('INSERT INTO prisma_transaction_probe (id) VALUES (1)', []);
      await sql.query('INSERT INTO prisma_transaction_probe (id) VALUES (2)', []);
      return 'done';
    });

    expect(answer).toBe('done');
    expect(await probed()).toEqual([1, 2]);
  });

  it("rolls back and reports the work's own failure", async () => {
    const outcome = await prismaSql(database.prisma)
      .transaction(async (sql) => {
        await sql.query('INSERT INTO prisma_transaction_probe (id) VALUES (7)', []);
        throw new Error('the work gave up');
      })
      .catch((error: unknown) => error);

    expect(outcome).toEqual(new Error('the work gave up'));
    expect(await probed()).toEqual([]);
  });

  it('does not report a commit when the work caught a refused statement and went on', async () => {
    const outcome = await prismaSql(database.prisma)
      .transaction(async (sql) => {
        await sql.query('INSERT INTO prisma_transaction_probe (id) VALUES (51)', []);
        await sql.query('SELECT 1 / 0', []).catch(() => undefined);
        return 'done';
      })
      .catch((error: unknown) => error);

    expect(outcome).toEqual(
      new Error('the transaction was rolled back: a statement in it failed and the work went on'),
    );
    expect(await probed()).toEqual([]);
  });
});
