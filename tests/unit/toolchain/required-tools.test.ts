// A contributor without a program from Debian still runs npm test: the suites that drive it are
// left out, with a line naming what to install; CI (TNS_REQUIRE_TOOLS) leaves nothing out.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const tools = require('../../support/required-tools.js') as {
  suitesWithoutTheirTools(): string[];
  missingToolLines(): string[];
};

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

  it('are run where the program is there', () => {
    process.env.CHROMIUM_PATH = process.execPath;
    delete process.env.TNS_REQUIRE_TOOLS;

    expect(tools.suitesWithoutTheirTools()).not.toContain('tests/e2e/');
  });
});
