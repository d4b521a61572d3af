// The adapter the schema engine applies migrations through: a script reaches PostgreSQL whole.
import { isDriverAdapterError } from '@prisma/driver-adapter-utils';
import { createSchemaEngineAdapterFactory } from '../../../scripts/migrations/schema-engine-adapter';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

jest.setTimeout(30_000);

describe('schema engine adapter', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await provisionTestDatabase();
  });
  afterAll(() => database.close());

  const withAdapter = async (work: (executeScript: (script: string) => Promise<void>) => Promise<void>) => {
    const factory = createSchemaEngineAdapterFactory(database.connectionString);
    const adapter = await factory.factory.connect();
    try {
      await work((script) => adapter.executeScript(script));
    } finally {
      await adapter.dispose();
      await factory.close();
    }
  };

  it('runs a script with a function body whose statements end in semicolons', async () => {
    await withAdapter((executeScript) =>
      executeScript(`
        CREATE FUNCTION "twice"(n integer) RETURNS integer LANGUAGE plpgsql AS $$
        BEGIN
          RETURN n * 2;
        END
        $$;
        CREATE TABLE "doubled" ("value" integer NOT NULL);
        INSERT INTO "doubled" VALUES ("twice"(21));`),
    );
    const rows = await database.prisma.$queryRaw<{ value: number }[]>`SELECT "value" FROM "doubled"`;
    expect(rows).toEqual([{ value: 42 }]);
  });

  it("applies nothing of a script that fails, and names PostgreSQL's error", async () => {
    let failure: unknown;
    await withAdapter(async (executeScript) => {
      failure = await executeScript('CREATE TABLE "half" ("id" integer); SELECT * FROM "no_such_table";').catch(
        (error: unknown) => error,
      );
    });
    expect(isDriverAdapterError(failure) && failure.cause.kind === 'postgres' && failure.cause.code).toBe('42P01');
    const [table] = await database.prisma.$queryRaw<
      { found: string | null }[]
    >`SELECT to_regclass('"half"')::text AS found`;
    expect(table?.found).toBeNull();
  });
});
