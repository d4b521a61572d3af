// Jest reporter: a run without DATABASE_URL ends with one line saying how many tests need a
// PostgreSQL server and were not run (tests/support/server-only-tests.ts counts them). JavaScript,
// since Jest loads reporters without its transform; tsx loads the TypeScript, and only when needed.

class ServerOnlyReporter {
  constructor(globalConfig) {
    this.globalConfig = globalConfig;
  }

  onRunComplete(projects, results) {
    if (process.env.DATABASE_URL && process.env.DATABASE_URL.trim()) return;
    const { serverOnlyLine } = require('tsx/cjs/api').require('./server-only-tests.ts', __filename);
    const ran = results.testResults.map((result) => result.testFilePath);
    const line = serverOnlyLine(this.globalConfig, projects, ran);
    if (line !== null) process.stderr.write(`${line}\n`);
  }
}

module.exports = ServerOnlyReporter;
