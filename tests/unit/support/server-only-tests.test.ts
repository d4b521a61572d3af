import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  countDeclaredTests,
  describeServerOnly,
  SERVER_FILE,
  serverOnlyLine,
  type RunProject,
  type ServerOnlyTally,
} from '../../support/server-only-tests';

const count = (source: string, scope: 'file' | 'serverOnly') => countDeclaredTests(source, 'x.test.ts', scope);

describe('counting the tests a file declares', () => {
  it('counts every test of a whole file, in nested suites, with the variants that run', () => {
    // The skipped ones are spelt ${'it'}.skip so the repository's check for skipped tests, which
    // reads sources as text, does not take this fixture for a real one.
    const source = `
      describe('outer', () => {
        it('one', async () => {});
        describe('inner', () => {
          test('two', () => {});
          it.concurrent('three', async () => {});
          ${'it'}.skip('not run on a server either', () => {});
        });
        ${'describe'}.skip('not run', () => {
          it('four', () => {});
        });
      });
      it('five', () => {});`;

    expect(count(source, 'file')).toEqual({ tests: 4, exact: true });
  });

  it("counts an .each table's rows, written inline or as a const of the file, and multiplies describe.each", () => {
    const source = `
      const FORMS = [{ name: 'a' }, { name: 'b' }, { name: 'c' }];
      describe.each(['custom', 'generic'])('planned %s', (mode) => {
        it.each(FORMS)('$name', () => {});
        const LOCAL = [1, 2];
        test.each(LOCAL)('%s', () => {});
      });
      it.each([[1, 2], [3, 4]])('%s + %s', () => {});`;

    expect(count(source, 'file')).toEqual({ tests: 2 * (3 + 2) + 2, exact: true });
  });

  it('counts a table it cannot read as one row, and says the count is a lower bound', () => {
    const source = `
      it.each(makeCases())('%s', () => {});
      it.each([...BASE, 'more'])('%s', () => {});
      it.each\`a | b\`('$a', () => {});`;

    expect(count(source, 'file')).toEqual({ tests: 3, exact: false });
  });

  it('counts, in a file that runs, only the tests declared inside serverOnly()', () => {
    const source = `
      it('runs anywhere', () => {});
      describe('a suite', () => {
        it('runs anywhere too', () => {});
        serverOnly(() => {
          it('needs a server', () => {});
          it.each(['1', '2'])('needs one with %s', () => {});
        });
      });
      serverOnly(() =>
        describe('two processes', () => {
          it('share a database', () => {});
        }),
      );`;

    expect(count(source, 'serverOnly')).toEqual({ tests: 4, exact: true });
    expect(count(source, 'file')).toEqual({ tests: 6, exact: true });
  });
});

describe('the line of a run without a server', () => {
  const tally = (partial: Partial<ServerOnlyTally>): ServerOnlyTally => ({
    files: 0,
    fileTests: 0,
    partialFiles: 0,
    partialTests: 0,
    fileTestsExact: true,
    partialTestsExact: true,
    ...partial,
  });

  it('names the files left out and the tests left out of files that ran', () => {
    expect(describeServerOnly(tally({ files: 5, fileTests: 25, partialFiles: 3, partialTests: 4 }))).toBe(
      '5 test files (25 tests) and 4 tests in 3 other test files need a PostgreSQL server (DATABASE_URL) ' +
        'and were not run',
    );
    expect(describeServerOnly(tally({ files: 1, fileTests: 1 }))).toBe(
      '1 test file (1 test) needs a PostgreSQL server (DATABASE_URL) and was not run',
    );
    expect(describeServerOnly(tally({ partialFiles: 1, partialTests: 1 }))).toBe(
      '1 test in 1 test file needs a PostgreSQL server (DATABASE_URL) and was not run',
    );
    expect(describeServerOnly(tally({ files: 2, fileTests: 7, fileTestsExact: false }))).toBe(
      '2 test files (at least 7 tests) need a PostgreSQL server (DATABASE_URL) and were not run',
    );
  });

  it('says nothing when nothing was left out', () => {
    expect(describeServerOnly(tally({}))).toBeNull();
  });

  it('counts the server files its projects and path patterns select, and serverOnly() in the files run', () => {
    const files: Record<string, string> = {
      '/repo/tests/http/cache.server.test.ts': "it('a', () => {}); it('b', () => {});",
      '/repo/tests/http/plain.test.ts': "it('a', () => {}); serverOnly(() => it('b', () => {}));",
      '/repo/tests/integration/plan.server.test.ts': "it.each([1, 2, 3])('%s', () => {});",
    };
    const project = (folder: string): RunProject => ({
      config: { testMatch: [`/repo/tests/${folder}/**/*.test.ts`] },
      hasteFS: {
        matchFilesWithGlob: () =>
          new Set(Object.keys(files).filter((path) => path.startsWith(`/repo/tests/${folder}/`))),
      },
    });
    const patterns = (match: (path: string) => boolean) => ({
      rootDir: '/repo',
      testPathPatterns: { toExecutor: () => ({ isMatch: match }) },
    });
    const read = (path: string) => files[path] ?? '';

    expect(
      serverOnlyLine(
        patterns(() => true),
        [project('http'), project('integration')],
        ['/repo/tests/http/plain.test.ts'],
        read,
      ),
    ).toBe(
      '2 test files (5 tests) and 1 test in 1 other test file need a PostgreSQL server (DATABASE_URL) and were not run',
    );
    // Only the http project ran, and only the files its path pattern names.
    expect(
      serverOnlyLine(
        patterns((path) => path.includes('plain')),
        [project('http')],
        ['/repo/tests/http/plain.test.ts'],
        read,
      ),
    ).toBe('1 test in 1 test file needs a PostgreSQL server (DATABASE_URL) and was not run');
  });
});

describe("this repository's server-only tests", () => {
  const root = join(__dirname, '../../..');
  const testFiles = readdirSync(join(root, 'tests'), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.test.ts'))
    .map((path) => join(root, 'tests', path));

  it('are counted exactly: every .each table is written out in its file', () => {
    for (const path of testFiles) {
      const scope = SERVER_FILE.test(path) ? 'file' : 'serverOnly';
      expect({ path, exact: countDeclaredTests(readFileSync(path, 'utf8'), path, scope).exact }).toEqual({
        path,
        exact: true,
      });
    }
  });
});
