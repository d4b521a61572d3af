import type { PrismaClient } from '../../../src/infrastructure/database/driver/generated/client';

/** Every stored row of one account, by table: its account row and every row keyed by its account id. */
export type AccountState = Readonly<Record<string, readonly Readonly<Record<string, unknown>>[]>>;

/** The service's identifiers: a prefix and 128 random bits in hex (docs/decisions.md, "Identifiers"). */
const IDENTIFIER = /^([a-z]+)_[0-9a-f]{32}$/;

/**
 * What the database holds for an account. The tables are read from the catalog (every table with
 * an `account_id` column), so a table added later is compared too. `ignore` leaves out columns
 * that merely record use, such as an API key's `last_used_at`.
 */
export async function accountState(
  prisma: PrismaClient,
  accountId: string,
  ignore: readonly string[] = [],
): Promise<AccountState> {
  const tables = await prisma.$queryRaw<{ table_name: string }[]>`
    SELECT table_name FROM information_schema.columns
    WHERE column_name = 'account_id' AND table_schema = current_schema()
    ORDER BY table_name`;
  const state: Record<string, Record<string, unknown>[]> = {
    accounts: await prisma.$queryRaw<Record<string, unknown>[]>`SELECT * FROM accounts WHERE id = ${accountId}`,
  };
  for (const { table_name: table } of tables) {
    // The name comes from the catalog, not from input.
    state[table] = await prisma.$queryRawUnsafe<Record<string, unknown>[]>(
      `SELECT * FROM "${table.replace(/"/g, '""')}" WHERE account_id = $1`,
      accountId,
    );
  }
  return Object.fromEntries(
    Object.entries(state).map(([table, rows]) => {
      const kept = rows.map((row) =>
        JSON.parse(
          JSON.stringify(
            Object.fromEntries(Object.entries(row).filter(([column]) => !ignore.includes(column))),
            asJson,
          ),
        ),
      );
      return [table, kept.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))];
    }),
  );
}

/** A traveller's version is a bigint, which JSON does not hold: its decimal digits stand for it. */
function asJson(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/** The identifiers of an account's records (`tml_...`, `evt_...`, `key_...`, ...), with their prefixes. */
export function identifiersIn(state: AccountState): { readonly id: string; readonly prefix: string }[] {
  const found = Object.values(state).flatMap((rows) =>
    rows.flatMap((row) => {
      const match = typeof row.id === 'string' ? IDENTIFIER.exec(row.id) : null;
      return match?.[1] ? [{ id: match[0], prefix: match[1] }] : [];
    }),
  );
  return found.sort((a, b) => a.id.localeCompare(b.id));
}
