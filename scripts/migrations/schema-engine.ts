// Prisma's migration engine, run in-process as WebAssembly.
//
// Why not the Prisma CLI: `prisma migrate` spawns a native schema-engine binary that the CLI
// downloads from Prisma's server on first use, and our machines and images have no internet
// access. `@prisma/schema-engine-wasm` is the same engine compiled to WebAssembly; it talks to the
// database through a driver adapter (the same @prisma/adapter-pg the service uses), so it works
// identically against a real PostgreSQL server and the embedded PGlite one.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { runInThisContext } from 'node:vm';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import { importNative } from '../../src/infrastructure/database/embedded/native-import';
import { createSchemaEngineAdapterFactory } from './schema-engine-adapter';
import type * as SchemaEngineGlue from '@prisma/schema-engine-wasm/schema_engine_bg';

export type SchemaEngine = SchemaEngineGlue.SchemaEngine;
export type MigrationList = SchemaEngineGlue.MigrationList;
export type SchemaFilter = SchemaEngineGlue.SchemaFilter;
export type MigrationDirectory = SchemaEngineGlue.MigrationDirectory;

/** No table or enum is managed outside Prisma. */
export const NO_EXTERNAL_OBJECTS: SchemaFilter = { externalTables: [], externalEnums: [] };

// tsconfig's `lib` has no DOM and @types/node 20 does not describe the WebAssembly global, so we
// declare the little we use of it.
declare const WebAssembly: {
  instantiate(
    bytes: Uint8Array,
    imports: Record<string, object>,
  ): Promise<{ instance: { exports: Record<string, unknown> } }>;
};

/**
 * The glue module is one per process (Node's module cache, shared by every Jest sandbox in the
 * process), and it keeps views of the wasm memory in module-level caches: instantiating a second
 * wasm instance for it corrupts the first one's engines ("FnOnce called more than once", invalid
 * UTF-8). So the instance is made once per process, and remembered on the main realm's global
 * object, which Jest's global setup (main realm) and test files (sandboxes) run in-band share.
 */
const GLUE_KEY = Symbol.for('time-navigation-service/schema-engine-glue');

/**
 * The package's entry point does `import * as wasm from "./schema_engine_bg.wasm"`, which only
 * bundlers understand, so we do its work by hand: load the wasm-bindgen glue (through Node's own
 * loader, see native-import.ts), instantiate the .wasm beside it with the glue as its import
 * object, then hand the instance back to the glue.
 */
export function loadSchemaEngineGlue(): Promise<typeof SchemaEngineGlue> {
  const mainRealmGlobal: Record<symbol, Promise<typeof SchemaEngineGlue> | undefined> = runInThisContext('globalThis');
  let glue = mainRealmGlobal[GLUE_KEY];
  if (!glue) {
    glue = instantiateGlue();
    mainRealmGlobal[GLUE_KEY] = glue;
    // A failed load may be retried.
    glue.catch(() => {
      if (mainRealmGlobal[GLUE_KEY] === glue) delete mainRealmGlobal[GLUE_KEY];
    });
  }
  return glue;
}

async function instantiateGlue(): Promise<typeof SchemaEngineGlue> {
  installPanicRegistry();
  const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  const module: typeof SchemaEngineGlue = await importNative(gluePath);
  const bytes = await readFile(path.join(path.dirname(gluePath), 'schema_engine_bg.wasm'));
  const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': module });
  module.__wbg_set_wasm(instance.exports);
  const start = instance.exports.__wbindgen_start;
  if (typeof start !== 'function') {
    throw new Error('@prisma/schema-engine-wasm: the wasm module exports no __wbindgen_start');
  }
  start();
  return module;
}

/**
 * When the engine panics, its glue hands the panic message to `global.PRISMA_WASM_PANIC_REGISTRY`
 * (the Prisma CLI provides it) and the wasm call then fails with a bare "unreachable" trap.
 * Without a registry the glue itself crashes the process with a TypeError, so we install one
 * that prints the message, the only account of what went wrong.
 *
 * The glue runs in Node's main realm, whose global object differs from the one visible here
 * under Jest; runInThisContext evaluates in the main realm and returns its global.
 */
function installPanicRegistry(): void {
  const mainRealmGlobal: Record<string, unknown> = runInThisContext('globalThis');
  mainRealmGlobal.PRISMA_WASM_PANIC_REGISTRY ??= {
    set_message(message: string) {
      console.error(`[schema-engine] panic: ${message}`);
    },
  };
}

export interface OpenedSchemaEngine {
  engine: SchemaEngine;
  /** Frees the engine and closes its database connection. */
  close(): Promise<void>;
}

/**
 * Creates an engine connected to `connectionString`, with `schemaFiles` ([path, content] pairs) as
 * its datamodel.
 */
export async function openSchemaEngine(
  connectionString: string,
  schemaFiles: Array<[string, string]> = [],
): Promise<OpenedSchemaEngine> {
  const { SchemaEngine } = await loadSchemaEngineGlue();
  const { factory, close } = createSchemaEngineAdapterFactory(connectionString);
  try {
    const engine = await SchemaEngine.new(
      { datamodels: schemaFiles },
      logEngineMessage,
      withMainRealmPromises(bindMigrationAwareSqlAdapterFactory(factory)),
    );
    return {
      engine,
      async close() {
        engine.free();
        await close();
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The glue runs in Node's main realm and accepts only that realm's promises from the adapter
 * (wasm-bindgen checks `instanceof Promise`). Under Jest our code and the adapter run in a sandbox
 * with its own Promise, which the engine rejects as "WASM_ERROR: Unknown error". This proxy hands
 * the engine main-realm promises, and wraps what they resolve to (the connection, its
 * transactions) the same way. Outside Jest both Promise constructors are the same and it
 * changes nothing.
 */
function withMainRealmPromises<T extends object>(target: T): T {
  const MainRealmPromise: PromiseConstructor = runInThisContext('Promise');
  const wrap = (value: unknown): unknown =>
    typeof value === 'object' && value !== null && !Array.isArray(value) ? withMainRealmPromises(value) : value;
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function') return wrap(value);
      return (...args: unknown[]) => {
        const result: unknown = Reflect.apply(value, object, args);
        if (typeof result === 'object' && result !== null && 'then' in result && typeof result.then === 'function') {
          const pending = Promise.resolve(result);
          return new MainRealmPromise((resolve, reject) => {
            pending.then((settled) => resolve(wrap(settled)), reject);
          });
        }
        return wrap(result);
      };
    },
  });
}

/**
 * The engine reports its tracing events as JSON strings. Only warnings and errors matter to
 * operators; everything else is debugging noise, printed when DEBUG_SCHEMA_ENGINE is set.
 */
function logEngineMessage(message: string): void {
  if (process.env.DEBUG_SCHEMA_ENGINE) {
    console.error(`[schema-engine] ${message}`);
    return;
  }
  if (/"level":"(WARN|ERROR)"/.test(message)) {
    console.warn(`[schema-engine] ${message}`);
  }
}
