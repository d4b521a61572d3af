// What the image's node_modules holds that the service never loads, removed in the build stage
// after `npm run build` (Dockerfile):
// - the Prisma query compilers of the databases it does not use: @prisma/client ships one per
//   database, in two builds and two module formats, about 4 MB each; the generated client imports
//   its own by name (`@prisma/client/runtime/query_compiler_...`), and nothing else loads them;
// - TypeScript's declaration files (`.d.ts`, `.d.mts`, `.d.cts` and their maps): Node never loads
//   them, and type stripping does not run under node_modules.
// Source maps stay: with --enable-source-maps Node reads a dependency's map when a stack trace
// passes through it.
//
//   node --import tsx scripts/container/never-loaded.ts [dist] [node_modules]
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const PRISMA_RUNTIME = path.join('@prisma', 'client', 'runtime');
const QUERY_COMPILER = /^query_compiler_/;
const DECLARATION = /\.d\.[cm]?ts(\.map)?$/;

/** The query compiler files that compiled code imports by name. */
export function importedQueryCompilers(code: string): Set<string> {
  const specifiers = code.matchAll(/["']@prisma\/client\/runtime\/(query_compiler_[^"'/]+)["']/g);
  return new Set([...specifiers].map((match) => match[1] ?? ''));
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * The files of `modulesDir` that code in `distDir` never loads. Refuses when the compiled code
 * imports no query compiler, or one that is missing: then the generated client changed, and
 * removing the others could leave the service without its own.
 */
export function neverLoaded(distDir: string, modulesDir: string): string[] {
  const imported = new Set<string>();
  for (const file of filesUnder(distDir).filter((each) => each.endsWith('.js'))) {
    for (const name of importedQueryCompilers(readFileSync(file, 'utf8'))) imported.add(name);
  }
  const runtime = path.join(modulesDir, PRISMA_RUNTIME);
  const compilers = readdirSync(runtime).filter((name) => QUERY_COMPILER.test(name));
  if (imported.size === 0) throw new Error(`${distDir}: no code imports a Prisma query compiler`);
  for (const name of imported) {
    if (!compilers.includes(name)) throw new Error(`${distDir} imports ${name}, which ${runtime} lacks`);
  }
  const unusedCompilers = compilers.filter((name) => !imported.has(name)).map((name) => path.join(runtime, name));
  const declarations = filesUnder(modulesDir).filter((file) => DECLARATION.test(file));
  return [...unusedCompilers, ...declarations];
}

if (require.main === module) {
  const [distDir = 'dist', modulesDir = 'node_modules'] = process.argv.slice(2);
  const files = neverLoaded(distDir, modulesDir);
  for (const file of files) rmSync(file);
  console.log(`never-loaded: removed ${files.length} files from ${modulesDir}`);
}
