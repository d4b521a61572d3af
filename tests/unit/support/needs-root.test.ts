import { withoutRootLine } from '../../support/needs-root';

/** Jest's results for the run, as a reporter gets them: test files, each with its tests. */
const results = (files: Record<string, Array<{ title: string; status: string }>>) => ({
  testResults: Object.entries(files).map(([file, testResults]) => ({
    testFilePath: `/work/repo/${file}`,
    testResults,
  })),
});

describe('the closing line for the tests that need root', () => {
  const run = results({
    'tests/http/embedded-full-disk.test.ts': [{ title: 'answers 503 meanwhile (needs root)', status: 'pending' }],
    'tests/http/embedded-isolation.test.ts': [
      { title: 'keeps its files from another user (needs root)', status: 'pending' },
      { title: 'another test', status: 'passed' },
    ],
    'tests/http/other.test.ts': [{ title: 'skipped for another reason', status: 'pending' }],
  });

  it('names the skipped ones and what to do, without root', () => {
    expect(withoutRootLine(run, false)).toBe(
      'Not run without root: 2 tests (tests/http/embedded-full-disk.test.ts, tests/http/embedded-isolation.test.ts). ' +
        'Run npm test as root to include them.',
    );
  });

  it('says nothing as root, or when none was skipped', () => {
    expect(withoutRootLine(run, true)).toBeNull();
    expect(
      withoutRootLine(results({ 'tests/http/x.test.ts': [{ title: 'y (needs root)', status: 'passed' }] }), false),
    ).toBeNull();
  });
});
