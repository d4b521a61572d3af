#!/usr/bin/env node
// Run first by `npm start` and `npm test` themselves (not by a pre-script, which npm skips under
// `ignore-scripts` too): `npm ci --ignore-scripts` leaves out the pinned Node (the `node` package
// installs its binary from a script) and the generated database client (our postinstall). Without
// them `node` is the machine's own and TypeScript fails in fifty lines; this says in one what to run.
//
// Plain CommonJS in the oldest syntax on purpose: it runs on whatever Node the machine has.
'use strict';

var fs = require('fs');
var path = require('path');

var root = path.join(__dirname, '..');
var pinned = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).devDependencies.node;
var GENERATED = [
  'src/infrastructure/database/driver/generated/client.ts',
  'src/infrastructure/persistence/kysely/generated/types.ts',
];
var FIX = 'run `npm ci --ignore-scripts=false` (the pinned Node and the database client come from install scripts)';

var problem = null;
if (process.version !== 'v' + pinned) {
  problem = 'runs on Node ' + process.version + ', not the pinned ' + pinned + ' npm ci installs into node_modules';
} else {
  var missing = GENERATED.filter(function (file) {
    return !fs.existsSync(path.join(root, file));
  });
  if (missing.length > 0) problem = 'has no generated database client (' + missing[0] + ')';
}
if (problem) {
  console.error('The install is incomplete: this checkout ' + problem + '; ' + FIX + '.');
  process.exit(1);
}
