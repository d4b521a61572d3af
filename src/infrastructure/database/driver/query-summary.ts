/**
 * Summaries already computed, the least recently used let go beyond `maxEntries`: the service
 * sends a small fixed set of texts, but a client that varies its texts (an operator's, a tool's)
 * must neither grow the cache for ever nor, once it is full, leave every new text to the regular
 * expressions at each call.
 */
export class QuerySummaries {
  /** In order of use, the least recent first (a Map iterates in insertion order). */
  private readonly summaries = new Map<string, string>();

  constructor(private readonly maxEntries: number) {}

  summaryOf(sql: string): string {
    let summary = this.summaries.get(sql);
    if (summary === undefined) {
      summary = summarize(sql);
      if (this.summaries.size >= this.maxEntries) {
        const leastRecent = this.summaries.keys().next();
        if (!leastRecent.done) this.summaries.delete(leastRecent.value);
      }
    } else this.summaries.delete(sql);
    this.summaries.set(sql, summary);
    return summary;
  }

  /** Whether `sql`'s summary is kept now. */
  has(sql: string): boolean {
    return this.summaries.has(sql);
  }
}

const summaries = new QuerySummaries(1_000);
/** OpenTelemetry's bound on `db.query.summary`. */
const MAX_LENGTH = 255;

/** What a statement does, wherever it appears (a subquery, a CTE). */
const OPERATIONS = new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'MERGE']);
/** Commands that are one only as a statement's first word (`SET` is also a clause of `UPDATE`). */
const COMMANDS = new Set([
  'BEGIN',
  'COMMIT',
  'ROLLBACK',
  'SAVEPOINT',
  'RELEASE',
  'SET',
  'SHOW',
  'LISTEN',
  'UNLISTEN',
  'NOTIFY',
  'LOCK',
  'TRUNCATE',
  'CALL',
  'ANALYZE',
]);
/** Keywords followed by the table a statement reads or writes. */
const TARGET_BEFORE = new Set(['FROM', 'INTO', 'UPDATE', 'JOIN', 'TABLE']);
/** Words before an `UPDATE` that is a clause (`FOR UPDATE`, `DO UPDATE`), not a statement. */
const CLAUSE_BEFORE_UPDATE = new Set(['FOR', 'DO']);

/**
 * `db.query.summary` of OpenTelemetry's database conventions: the operations of a statement and
 * the tables they touch, in order (`SELECT events`, `UPDATE accounts INSERT events`), with no
 * literal or parameter: a span's name and a metric's label, bounded whatever the text. Read from
 * the text, so that Prisma's statements and the service's own are named alike.
 */
export function querySummary(sql: string): string {
  return summaries.summaryOf(sql);
}

/** Literals (skipped), quoted names, words, and the punctuation that ends a name or a statement. */
const TOKENS =
  /'(?:[^']|'')*'|"((?:[^"]|"")+)"(?:\s*\.\s*"((?:[^"]|"")+)")?|([A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)?)|([(;])/g;

/** A common table expression's name (`WITH guard AS (`, `, w0 AS (`): not a table of the database. */
const CTE = /(?:\bwith|,)\s*"?([A-Za-z_][\w$]*)"?\s+as\s*\(/gi;

function summarize(sql: string): string {
  const expressions = new Set([...sql.matchAll(CTE)].map((match) => (match[1] ?? '').toLowerCase()));
  const parts: string[] = [];
  let targetNext = false;
  let statementStart = true;
  let previous = '';
  for (const match of sql.matchAll(TOKENS)) {
    const [token, quoted, quotedMember, word, punctuation] = match;
    const first = statementStart;
    statementStart = punctuation === ';';
    if (punctuation !== undefined || (quoted === undefined && word === undefined)) {
      targetNext = false;
      continue;
    }
    const upper = word?.toUpperCase() ?? '';
    const keyword = OPERATIONS.has(upper) || TARGET_BEFORE.has(upper) || (first && COMMANDS.has(upper));
    if (targetNext && !keyword) {
      targetNext = false;
      // A name called (`FROM unnest($1)`) is a function, not a table; `INTO t (a, b)` lists columns.
      if (previous !== 'INTO' && opensParenthesis(sql, match.index + token.length)) continue;
      const table = quoted !== undefined ? (quotedMember ?? quoted) : unqualified(word ?? '');
      if (!expressions.has(table.toLowerCase())) parts.push(table);
      continue;
    }
    const clause = upper === 'UPDATE' && CLAUSE_BEFORE_UPDATE.has(previous);
    previous = upper;
    if (clause) continue;
    if ((OPERATIONS.has(upper) || (first && COMMANDS.has(upper))) && parts.at(-1) !== upper) parts.push(upper);
    if (TARGET_BEFORE.has(upper)) targetNext = true;
  }
  const summary = parts.join(' ') || 'OTHER';
  return summary.length <= MAX_LENGTH ? summary : summary.slice(0, MAX_LENGTH);
}

/** The text from `at` on starts with `(`, white space aside. */
function opensParenthesis(sql: string, at: number): boolean {
  return sql.slice(at).trimStart().startsWith('(');
}

/** `public.events` as `events`: every table of the service is in one schema. */
function unqualified(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? name : name.slice(dot + 1);
}
