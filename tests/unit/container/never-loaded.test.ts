// What the image's build stage removes from node_modules as never loaded
// (scripts/container/never-loaded.ts): the query compilers of the databases the generated Prisma
// client does not use, and declaration files; never the compiler the client imports.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { importedQueryCompilers, neverLoaded } from '../../../scripts/container/never-loaded';

const GENERATED_CLASS = path.join(__dirname, '../../../src/infrastructure/database/driver/generated/internal/class.ts');

it('reads which query compiler the generated client imports: the PostgreSQL one', () => {
  expect([...importedQueryCompilers(readFileSync(GENERATED_CLASS, 'utf8'))].sort()).toEqual([
    'query_compiler_fast_bg.postgresql.js',
    'query_compiler_fast_bg.postgresql.wasm-base64.js',
  ]);
});

describe('neverLoaded', () => {
  let root: string;
  const write = (file: string, text = '') => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };
  const runtime = 'node_modules/@prisma/client/runtime';
  const relative = (files: string[]) => files.map((file) => path.relative(root, file)).sort();

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'never-loaded-'));
    write(
      'dist/generated/class.js',
      'getRuntime: async () => await import("@prisma/client/runtime/query_compiler_fast_bg.postgresql.js"),\n' +
        'const { wasm } = await import("@prisma/client/runtime/query_compiler_fast_bg.postgresql.wasm-base64.js");',
    );
    for (const build of ['fast', 'small'])
      for (const db of ['postgresql', 'mysql'])
        for (const file of ['.js', '.mjs', '.wasm-base64.js'])
          write(`${runtime}/query_compiler_${build}_bg.${db}${file}`);
    write(`${runtime}/client.js`);
    write(`${runtime}/client.d.ts`);
    write('node_modules/pg/lib/index.js');
    write('node_modules/pg/lib/index.d.mts');
    write('node_modules/pg/lib/index.d.cts.map');
    write('node_modules/pg/lib/index.js.map');
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('lists the other compilers and the declaration files, and keeps code, maps and the imported compiler', () => {
    expect(relative(neverLoaded(path.join(root, 'dist'), path.join(root, 'node_modules')))).toEqual(
      [
        `${runtime}/client.d.ts`,
        `${runtime}/query_compiler_fast_bg.mysql.js`,
        `${runtime}/query_compiler_fast_bg.mysql.mjs`,
        `${runtime}/query_compiler_fast_bg.mysql.wasm-base64.js`,
        `${runtime}/query_compiler_fast_bg.postgresql.mjs`,
        `${runtime}/query_compiler_small_bg.mysql.js`,
        `${runtime}/query_compiler_small_bg.mysql.mjs`,
        `${runtime}/query_compiler_small_bg.mysql.wasm-base64.js`,
        `${runtime}/query_compiler_small_bg.postgresql.js`,
        `${runtime}/query_compiler_small_bg.postgresql.mjs`,
        `${runtime}/query_compiler_small_bg.postgresql.wasm-base64.js`,
        'node_modules/pg/lib/index.d.cts.map',
        'node_modules/pg/lib/index.d.mts',
      ].sort(),
    );
  });

  it('refuses when no compiled code imports a query compiler', () => {
    write('dist/generated/class.js', 'module.exports = {};');
    expect(() => neverLoaded(path.join(root, 'dist'), path.join(root, 'node_modules'))).toThrow(
      'no code imports a Prisma query compiler',
    );
  });

  it('refuses when the compiler the code imports is not installed', () => {
    rmSync(path.join(root, runtime, 'query_compiler_fast_bg.postgresql.wasm-base64.js'));
    expect(() => neverLoaded(path.join(root, 'dist'), path.join(root, 'node_modules'))).toThrow(
      'imports query_compiler_fast_bg.postgresql.wasm-base64.js',
    );
  });
});
