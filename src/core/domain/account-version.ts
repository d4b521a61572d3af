/**
 * An account's version: the count of its units of work, kept as the decimal text of a PostgreSQL
 * bigint (beyond a JavaScript number's exact integers). Compared as numbers, never as text.
 */
export function isLaterVersion(version: string, than: string): boolean {
  return BigInt(version) > BigInt(than);
}
