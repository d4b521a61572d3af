// Counts, from their source, the tests a run without a PostgreSQL server leaves out (server-only.ts),
// so the run can say so in one line (server-only-reporter.js) instead of dropping them silently.
import { readFileSync } from 'node:fs';
import ts from 'typescript';

/** Tests declared, and whether each table of an `.each` could be counted (else it counts as one row). */
export interface TestCount {
  tests: number;
  exact: boolean;
}

/** What a run without a server left out: whole files, and tests inside serverOnly() in files it ran. */
export interface ServerOnlyTally {
  files: number;
  fileTests: number;
  partialFiles: number;
  partialTests: number;
  /** Whether fileTests and partialTests are exact, or only lower bounds (see countDeclaredTests). */
  fileTestsExact: boolean;
  partialTestsExact: boolean;
}

const TEST_FUNCTIONS = new Set(['it', 'test']);
const SUITE_FUNCTIONS = new Set(['describe']);
/** Variants that do not run on a server either. */
const NOT_RUN = new Set(['skip', 'todo']);
const SERVER_ONLY = 'serverOnly';
export const SERVER_FILE = /\.server\.test\.ts$/;

/**
 * The tests `source` declares: all of them (`scope` 'file'), or only those declared inside the
 * callback of a serverOnly() call ('serverOnly'). `it.each(table)` counts the table's rows and
 * `describe.each(table)` multiplies what it declares, when the table is an array written out in the
 * file (inline, or a const of that name); any other table counts as one row and makes the count
 * inexact.
 */
export function countDeclaredTests(source: string, fileName: string, scope: 'file' | 'serverOnly'): TestCount {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const tables = arrayLengthsByName(file);
  const count: TestCount = { tests: 0, exact: true };

  /** Rows of an `.each` table; one when they cannot be read, and then `known` is false. */
  const rows = (table: ts.Expression | undefined): { times: number; known: boolean } => {
    const length = table === undefined ? undefined : arrayLength(table, tables);
    return length === undefined ? { times: 1, known: false } : { times: length, known: true };
  };
  /** `times`: how often the enclosing describe.each tables repeat a test; `known`: whether they could be read. */
  const add = (times: number, known: boolean): void => {
    count.tests += times;
    count.exact &&= known;
  };

  const visit = (node: ts.Node, times: number, known: boolean, counted: boolean): void => {
    const children = (inner: ts.Node, innerTimes = times, innerKnown = known, innerCounted = counted) =>
      ts.forEachChild(inner, (child) => visit(child, innerTimes, innerKnown, innerCounted));
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (ts.isIdentifier(callee) && callee.text === SERVER_ONLY) return children(node, times, known, true);
      const test = jestFunction(callee);
      if (test && !test.each && TEST_FUNCTIONS.has(test.name)) {
        if (counted && !test.notRun) add(times, known);
        return;
      }
      if (test && SUITE_FUNCTIONS.has(test.name) && test.notRun) return;
      // it.each(table)(name, fn) and describe.each(table)(name, fn); a tagged template table is not read.
      const tabled = ts.isCallExpression(callee) || ts.isTaggedTemplateExpression(callee);
      const each = tabled ? jestFunction(ts.isCallExpression(callee) ? callee.expression : callee.tag) : undefined;
      if (each?.each) {
        if (each.notRun) return;
        const table = rows(ts.isCallExpression(callee) ? callee.arguments[0] : undefined);
        if (SUITE_FUNCTIONS.has(each.name)) return children(node, times * table.times, known && table.known);
        if (counted) add(times * table.times, known && table.known);
        return;
      }
    }
    children(node);
  };

  visit(file, 1, true, scope === 'file');
  return count;
}

/** `it`, `test` or `describe` with its modifiers (`it.each`, `describe.skip`, `test.concurrent.each`). */
function jestFunction(callee: ts.Expression): { name: string; each: boolean; notRun: boolean } | undefined {
  const modifiers: string[] = [];
  let at = callee;
  while (ts.isPropertyAccessExpression(at)) {
    modifiers.unshift(at.name.text);
    at = at.expression;
  }
  if (!ts.isIdentifier(at) || !(TEST_FUNCTIONS.has(at.text) || SUITE_FUNCTIONS.has(at.text))) return undefined;
  return {
    name: at.text,
    each: modifiers.at(-1) === 'each',
    notRun: modifiers.some((modifier) => NOT_RUN.has(modifier)),
  };
}

/** Constants initialised with an array written out, by name; a name declared twice is left out. */
function arrayLengthsByName(file: ts.SourceFile): Map<string, number | undefined> {
  const lengths = new Map<string, number | undefined>();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
      const name = node.name.text;
      const length = ts.isArrayLiteralExpression(node.initializer) ? literalLength(node.initializer) : undefined;
      lengths.set(name, lengths.has(name) ? undefined : length);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return lengths;
}

function arrayLength(table: ts.Expression, named: Map<string, number | undefined>): number | undefined {
  if (ts.isArrayLiteralExpression(table)) return literalLength(table);
  if (ts.isIdentifier(table)) return named.get(table.text);
  return undefined;
}

/** Rows of an array written out; a spread (`...more`) hides how many. */
function literalLength(array: ts.ArrayLiteralExpression): number | undefined {
  return array.elements.some((element) => ts.isSpreadElement(element)) ? undefined : array.elements.length;
}

/** The tally of a run without a server, from the files it left out and the files it ran. */
export function tallyServerOnly(
  leftOut: readonly string[],
  ran: readonly string[],
  read: (path: string) => string,
): ServerOnlyTally {
  const tally: ServerOnlyTally = {
    files: 0,
    fileTests: 0,
    partialFiles: 0,
    partialTests: 0,
    fileTestsExact: true,
    partialTestsExact: true,
  };
  for (const path of leftOut) {
    const { tests, exact } = countDeclaredTests(read(path), path, 'file');
    tally.files += 1;
    tally.fileTests += tests;
    tally.fileTestsExact &&= exact;
  }
  for (const path of ran) {
    const source = read(path);
    if (!source.includes(SERVER_ONLY)) continue;
    const { tests, exact } = countDeclaredTests(source, path, 'serverOnly');
    if (tests === 0) continue;
    tally.partialFiles += 1;
    tally.partialTests += tests;
    tally.partialTestsExact &&= exact;
  }
  return tally;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** The run's one line about what it left out, or null when it left nothing out. */
export function describeServerOnly(tally: ServerOnlyTally): string | null {
  const tests = (count: number, exact: boolean) => `${exact ? '' : 'at least '}${plural(count, 'test')}`;
  const parts: string[] = [];
  if (tally.files > 0) {
    parts.push(`${plural(tally.files, 'test file')} (${tests(tally.fileTests, tally.fileTestsExact)})`);
  }
  if (tally.partialTests > 0) {
    const where = plural(tally.partialFiles, tally.files > 0 ? 'other test file' : 'test file');
    parts.push(`${tally.files > 0 ? 'and ' : ''}${tests(tally.partialTests, tally.partialTestsExact)} in ${where}`);
  }
  if (parts.length === 0) return null;
  const one = (tally.files === 1 && tally.partialTests === 0) || (tally.files === 0 && tally.partialTests === 1);
  const [need, were] = one ? ['needs', 'was'] : ['need', 'were'];
  return `${parts.join(' ')} ${need} a PostgreSQL server (DATABASE_URL) and ${were} not run`;
}

/** What the reporter reads of a project Jest ran (its TestContext). */
export interface RunProject {
  config: { testMatch: string[] };
  hasteFS: { matchFilesWithGlob(globs: string[], root: string | null): Set<string> };
}

/** What the reporter reads of Jest's global configuration: the run's path patterns. */
export interface RunPatterns {
  rootDir: string;
  testPathPatterns: { toExecutor(options: { rootDir: string }): { isMatch(path: string): boolean } };
}

/**
 * The line for a run without a server: the *.server.test.ts files its path patterns select in the
 * projects that ran tests (Jest leaves those files out before it looks at them, and tells reporters
 * only of projects with tests to run), and the serverOnly() tests of the files it ran.
 */
export function serverOnlyLine(
  patterns: RunPatterns,
  projects: Iterable<RunProject>,
  ran: readonly string[],
  read: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): string | null {
  const selected = patterns.testPathPatterns.toExecutor({ rootDir: patterns.rootDir });
  const leftOut = new Set<string>();
  for (const project of projects) {
    for (const path of project.hasteFS.matchFilesWithGlob(project.config.testMatch, null)) {
      if (SERVER_FILE.test(path) && selected.isMatch(path)) leftOut.add(path);
    }
  }
  return describeServerOnly(tallyServerOnly([...leftOut].sort(), ran, read));
}
