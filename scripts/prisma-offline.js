#!/usr/bin/env node
// Runs the Prisma CLI without internet access.
//
// Before `generate`, `migrate`, `validate`, ... the CLI makes sure a native schema-engine binary is
// present and downloads it from Prisma's server otherwise; that download fails on machines that
// only reach the npm registry (CI runners, the image's build stage). `generate` and `studio` never
// run that binary, and the CLI skips the download when PRISMA_SCHEMA_ENGINE_BINARY names an
// existing executable, so we point it at the Node binary running this script: it exists on every
// machine that can run this script. Migrations do not go through the CLI at all: they run
// in-process on the WebAssembly engine (src/infrastructure/database/).
//
// Plain CommonJS JavaScript on purpose: it runs from `postinstall` in `npm ci`, before anything is
// compiled.
'use strict';

const { spawn } = require('node:child_process');
const { constants } = require('node:os');
const path = require('node:path');

const prismaCli = resolvePrismaCli();
const env = { ...process.env };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) {
  env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
}
// The CLI starts a generator by the name in schema.prisma (`prisma-kysely`): found on PATH, which
// only npm scripts extend with node_modules/.bin.
env.PATH = [path.join(__dirname, '..', 'node_modules', '.bin'), env.PATH].filter(Boolean).join(path.delimiter);
// No update check or telemetry request: there is no network to send them to.
if (!env.CHECKPOINT_DISABLE) {
  env.CHECKPOINT_DISABLE = '1';
}

const child = spawn(process.execPath, [prismaCli, ...process.argv.slice(2)], { stdio: 'inherit', env });
// Passed on so that stopping this wrapper (npm run db:studio stops it with SIGTERM) stops the CLI.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('error', (error) => {
  throw error;
});
child.on('exit', (code, signal) => {
  // A child killed by a signal exits like a shell reports it: 128 + the signal's number.
  process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0));
});

function resolvePrismaCli() {
  try {
    return require.resolve('prisma/build/index.js');
  } catch (error) {
    if (error.code !== 'MODULE_NOT_FOUND') throw error;
    // The CLI is a dev dependency: an install with --omit=dev has no client generator.
    console.error(
      'The Prisma CLI (package "prisma", a dev dependency) is not installed: run `npm ci` with dev dependencies.',
    );
    process.exit(1);
  }
}
