// The driver adapter the schema engine talks to the database through: @prisma/adapter-pg, with
// one fix the engine needs to describe a live database.
//
// Why the fix: to describe a database (`db:migration:new` diffs a scratch database that has the
// existing migrations applied) the engine reads catalog columns of PostgreSQL's one-byte type
// "char" (OID 18), such as pg_constraint.contype, and expects them as its Character column type.
// @prisma/adapter-pg 7.10 has no mapping for OID 18: queries fail with "Column type 'char' could
// not be deserialized", and a text mapping makes the engine panic ("... as char failed").
// So our pg client marks such columns (text type, name suffixed with a marker) and the adapter
// wrapper below reports them back under their own name as Character. Applying migrations never
// reads such columns; the fix only matters to describing.
import { PrismaPg } from '@prisma/adapter-pg';
import {
  ColumnTypeEnum,
  DriverAdapterError,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
  type SqlQueryable,
  type SqlResultSet,
} from '@prisma/driver-adapter-utils';
import { Client, DatabaseError, Pool } from 'pg';

const CHAR_TYPE_OID = 18;
const TEXT_TYPE_OID = 25;
const CHAR_COLUMN_MARKER = '\u0000char';

class CharColumnMarkingClient extends Client {
  // pg's query() has many overloads (promise or callback). The pool calls query(config, values,
  // callback), the adapter query(config) for a promise; both are forwarded unchanged, with the
  // result's field descriptions rewritten.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the overloads return a promise or nothing
  override query(...args: unknown[]): any {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (error: unknown, result: unknown) => callback(error, error ? result : markCharColumns(result));
    }
    const returned: unknown = Reflect.apply(Client.prototype.query, this, args);
    // A thenable test rather than instanceof: under Jest, promises may come from another realm.
    if (typeof returned === 'object' && returned !== null && 'then' in returned) {
      return Promise.resolve(returned).then(markCharColumns);
    }
    return returned;
  }
}

function markCharColumns(result: unknown): unknown {
  const results = Array.isArray(result) ? result : [result];
  for (const each of results) {
    if (typeof each !== 'object' || each === null || !('fields' in each) || !Array.isArray(each.fields)) continue;
    for (const field of each.fields) {
      if (typeof field === 'object' && field !== null && field.dataTypeID === CHAR_TYPE_OID) {
        field.dataTypeID = TEXT_TYPE_OID;
        field.name = `${field.name}${CHAR_COLUMN_MARKER}`;
      }
    }
  }
  return result;
}

function restoreCharColumns(result: SqlResultSet): SqlResultSet {
  const columnTypes = [...result.columnTypes];
  const columnNames = result.columnNames.map((name, index) => {
    if (!name.endsWith(CHAR_COLUMN_MARKER)) return name;
    columnTypes[index] = ColumnTypeEnum.Character;
    return name.slice(0, -CHAR_COLUMN_MARKER.length);
  });
  return { ...result, columnNames, columnTypes };
}

/** The same connection or transaction, with "char" columns reported as Character. */
function reportingCharColumns<T extends SqlQueryable>(queryable: T, overrides: Record<string, unknown> = {}): T {
  return new Proxy(queryable, {
    get(target, property) {
      if (property === 'queryRaw') {
        return async (query: SqlQuery) => restoreCharColumns(await target.queryRaw(query));
      }
      if (typeof property === 'string' && Object.hasOwn(overrides, property)) return overrides[property];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function adapterReportingCharColumns(adapter: SqlDriverAdapter & { underlyingDriver(): Pool }): SqlDriverAdapter {
  return reportingCharColumns(adapter, {
    startTransaction: async (...args: Parameters<SqlDriverAdapter['startTransaction']>) =>
      reportingCharColumns(await adapter.startTransaction(...args)),
    executeScript: (script: string) => executeWhole(adapter.underlyingDriver(), script),
  });
}

/**
 * A migration script goes to PostgreSQL whole, in one simple-protocol query (one implicit
 * transaction), as Prisma's native engine sends it: @prisma/adapter-pg's executeScript splits it
 * at every semicolon, even inside a `$$` function body or a string.
 */
async function executeWhole(pool: Pool, script: string): Promise<void> {
  try {
    await pool.query(script);
  } catch (error) {
    // Reported as the adapter reports a failed statement, so the engine names PostgreSQL's error.
    if (!(error instanceof DatabaseError)) throw error;
    const { code = 'N/A', severity = 'N/A', message, detail, column, hint } = error;
    throw new DriverAdapterError({ kind: 'postgres', code, severity, message, detail, column, hint });
  }
}

export interface SchemaEngineAdapterFactory {
  factory: SqlMigrationAwareDriverAdapterFactory;
  /** Ends the connections; the engine does not reliably dispose of its adapter itself. */
  close(): Promise<void>;
}

/** One connection is all the engine uses; a pool we own lets us end it for certain. */
export function createSchemaEngineAdapterFactory(connectionString: string): SchemaEngineAdapterFactory {
  const pool = new Pool({ connectionString, max: 1, Client: CharColumnMarkingClient });
  const pg = new PrismaPg(pool);
  return {
    factory: {
      adapterName: pg.adapterName,
      provider: pg.provider,
      connect: async () => adapterReportingCharColumns(await pg.connect()),
      connectToShadowDb: async () => adapterReportingCharColumns(await pg.connectToShadowDb()),
    },
    close: () => pool.end(),
  };
}
