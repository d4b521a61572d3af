// Jest reporter: a run without DATABASE_URL ends with one line saying how many tests need a
// PostgreSQL server and were not run (tests/support/server-only-tests.ts counts them), and a run
// without a program from Debian that some suites drive, with a line naming it (required-tools.js), and one
// without root, with a line naming the tests that need it (needs-root.js). JavaScript,
// since Jest loads reporters without its transform; tsx loads the TypeScript, and only when needed.

const { missingToolLines } = require('./required-tools.js');
const { withoutRootLine } = require('./needs-root.js');

class ServerOnlyReporter {
  constructor(globalConfig) {
    this.globalConfig = globalConfig;
  }

  onRunComplete(projects, results) {
    for (const line of missingToolLines()) process.stderr.write(`${line}\n`);
    const rootLine = withoutRootLine(results);
    if (rootLine !== null) process.stderr.write(`${rootLine}\n`);
    if (process.env.DATABASE_URL && process.env.DATABASE_URL.trim()) return;
    const { serverOnlyLine } = require('tsx/cjs/api').require('./server-only-tests.ts', __filename);
    const ran = results.testResults.map((result) => result.testFilePath);
    const line = serverOnlyLine(this.globalConfig, projects, ran);
    if (line !== null) process.stderr.write(`${line}\n`);
  }
}

module.exports = ServerOnlyReporter;
