// A contributor without a program from Debian still runs npm test: the suites that drive it are
// left out, with a line naming what to install; CI (TNS_REQUIRE_TOOLS) leaves nothing out.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const tools = require('../../support/required-tools.js') as {
  TOOLS: ReadonlyArray<{ packages: string[]; variables: string[]; suites: string[] }>;
  suitesWithoutTheirTools(): string[];
  missingToolLines(): string[];
};

const ROOT = path.resolve(__dirname, '../../..');

/** Every TypeScript file under tests/, by its path from the repository's root. */
function testSources(): string[] {
  return readdirSync(path.join(ROOT, 'tests'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.join('tests', file));
}

/** The files under tests/ that `file` imports, directly or through others. */
function reachedFrom(file: string, imports: ReadonlyMap<string, string[]>): Set<string> {
  const reached = new Set<string>([file]);
  const pending = [file];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const imported of imports.get(next) ?? []) {
      if (reached.has(imported)) continue;
      reached.add(imported);
      pending.push(imported);
    }
  }
  return reached;
}

describe('suites that need a program from Debian', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('are left out where their program is missing, with a line naming the package', () => {
    process.env.CHROMIUM_PATH = '/nowhere/chromium';
    delete process.env.TNS_REQUIRE_TOOLS;

    expect(tools.suitesWithoutTheirTools()).toContain('tests/e2e/');
    expect(tools.missingToolLines()).toContainEqual(expect.stringContaining('apt-get install chromium'));
  });

  it('are all run where TNS_REQUIRE_TOOLS is set, as on CI, so a missing program fails them', () => {
    process.env.CHROMIUM_PATH = '/nowhere/chromium';
    process.env.TNS_REQUIRE_TOOLS = '1';

    expect(tools.suitesWithoutTheirTools()).toEqual([]);
    expect(tools.missingToolLines()).toEqual([]);
  });

  it('are not named for a program whose suites need a server, when the run has none', () => {
    process.env.PGBOUNCER = '/nowhere/pgbouncer';
    delete process.env.TNS_REQUIRE_TOOLS;
    delete process.env.DATABASE_URL;
    expect(tools.missingToolLines().join('\n')).not.toContain('pgbouncer');

    process.env.DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';
    expect(tools.missingToolLines().join('\n')).toContain('apt-get install pgbouncer');
  });

  it('are every test file that drives the program, through whatever module of tests/support', () => {
    const sources = testSources().filter((file) => !file.startsWith('tests/unit/toolchain/'));
    const texts = new Map(sources.map((file) => [file, readFileSync(path.join(ROOT, file), 'utf8')]));
    const imports = new Map(
      [...texts].map(([file, text]) => [
        file,
        [...text.matchAll(/from '(\.{1,2}\/[^']+)'/g)].map((match) => path.join(path.dirname(file), `${match[1]}.ts`)),
      ]),
    );
    for (const tool of tools.TOOLS) {
      const readers = sources.filter((file) =>
        tool.variables.some((variable) => new RegExp(`process\\.env\\.${variable}\\b`).test(texts.get(file) ?? '')),
      );
      const drivers = sources.filter(
        (file) => file.endsWith('.test.ts') && readers.some((reader) => reachedFrom(file, imports).has(reader)),
      );
      const listed = drivers.filter((file) => tool.suites.some((suite) => file.startsWith(suite)));
      expect({ tool: tool.packages[0], drivers }).toEqual({ tool: tool.packages[0], drivers: listed });
      expect(drivers.length).toBeGreaterThan(0);
    }
  });

  it('are run where the program is there', () => {
    process.env.CHROMIUM_PATH = process.execPath;
    delete process.env.TNS_REQUIRE_TOOLS;

    expect(tools.suitesWithoutTheirTools()).not.toContain('tests/e2e/');
  });
});
