// Loads the two WebAssembly packages that cannot go through Jest's module sandbox:
// - @prisma/schema-engine-wasm's glue is an ES module: Jest's require() refuses it, while Node's
//   own require() loads ES modules (Node >= 20.19);
// - PGlite's CommonJS build loads its wasm and data files with a native `import('fs/promises')`,
//   which fails inside Jest's sandbox with ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG.
// Outside a sandbox (tsx, compiled code) a plain require() does. Inside one, a function compiled
// by runInThisContext with USE_MAIN_CONTEXT_DEFAULT_LOADER imports through Node's default loader
// in the main realm, as if there were no test runner, and needs no Jest configuration. (Node
// prints one ExperimentalWarning for that option, under Jest only.)
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { constants, runInThisContext } from 'node:vm';

/** Imports the file at `absolutePath` (resolve it with require.resolve first). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a module of any shape, as require() gives
export async function importNative(absolutePath: string): Promise<any> {
  if (!inSandbox()) {
    return createRequire(__filename)(absolutePath);
  }
  // Typed `any` by runInThisContext, like require(): each caller states the module type it expects.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
  const importInMainRealm: (url: string) => Promise<any> = runInThisContext('(url) => import(url)', {
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  return importInMainRealm(pathToFileURL(absolutePath).href);
}

/** True under Jest: our globals are not those of Node's main realm. */
function inSandbox(): boolean {
  return runInThisContext('globalThis') !== globalThis;
}
