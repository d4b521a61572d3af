// Prisma's migration engine, run in-process as WebAssembly.
//
// Why not the Prisma CLI: `prisma migrate` spawns a native schema-engine binary that the CLI
// downloads from Prisma's server on first use, and our machines and images have no internet
// access. `@prisma/schema-engine-wasm` is the same engine compiled to WebAssembly; it talks to the
// database through a driver adapter (the same @prisma/adapter-pg the service uses), so it works
// identically against a real PostgreSQL server and the embedded PGlite one.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { runInThisContext } from 'node:vm';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
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

let glue: Promise<typeof SchemaEngineGlue> | undefined;

/**
 * The package's entry point does `import * as wasm from "./schema_engine_bg.wasm"`, which only
 * bundlers understand, so we do its work by hand: load the wasm-bindgen glue, instantiate the
 * .wasm beside it with the glue as its import object, then hand the instance back to the glue.
 *
 * The glue is an ES module. Node (>= 20.19) can `require()` it, but Jest's module registry cannot
 * (it would need a transform for that one file), so we load it with Node's own `require` from
 * `createRequire`: it bypasses the test runner's registry and needs no Jest configuration.
 * The WebAssembly instance is created once per process and shared.
 */
export function loadSchemaEngineGlue(): Promise<typeof SchemaEngineGlue> {
  glue ??= instantiateGlue().catch((error: unknown) => {
    glue = undefined;
    throw error;
  });
  return glue;
}

async function instantiateGlue(): Promise<typeof SchemaEngineGlue> {
  installPanicRegistry();
  const nodeRequire = createRequire(__filename);
  const gluePath = nodeRequire.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  const module: typeof SchemaEngineGlue = nodeRequire(gluePath);
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
 * The glue runs in Node's main realm (see above), whose global object differs from the one
 * visible here under Jest; runInThisContext evaluates in the main realm and returns its global.
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
      bindMigrationAwareSqlAdapterFactory(factory),
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
