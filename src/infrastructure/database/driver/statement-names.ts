import { createHash } from 'node:crypto';

/** Names already computed: the service's statements are a small fixed set, hashed once each. */
const names = new Map<string, string>();
const MAX_NAMES = 1_000;

/**
 * The name under which each connection prepares a statement once and reuses it: PostgreSQL then
 * skips parsing and, after a few runs, planning (0.8 ms of the 1.8 ms the event listing took;
 * docs/performance.md). The same text gets the same name whether Prisma or the pool sends it.
 */
export function statementName(sql: string): string {
  let name = names.get(sql);
  if (name === undefined) {
    name = `tns_${createHash('sha1').update(sql).digest('base64url')}`;
    if (names.size < MAX_NAMES) names.set(sql, name);
  }
  return name;
}
