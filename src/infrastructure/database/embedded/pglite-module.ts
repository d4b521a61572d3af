// PGlite, loaded through Node's own import() (see native-import.ts for why).
import type * as Pglite from '@electric-sql/pglite';
import { importNative } from './native-import';

export type PGlite = Pglite.PGlite;
export type PGliteOptions = Pglite.PGliteOptions;

let loaded: Promise<typeof Pglite> | undefined;

export function loadPglite(): Promise<typeof Pglite> {
  loaded ??= importNative(require.resolve('@electric-sql/pglite'));
  return loaded;
}

/** What PGlite starts from: a data directory, or a database in memory (from a dump). */
export type PgliteSource =
  { readonly dataDir: string } | { readonly inMemory: true; readonly initialData?: ArrayBuffer };

/** PGlite on `source`, with PostgreSQL's `-c` `settings` at every start and at initdb. */
export async function openPglite(source: PgliteSource, settings: readonly string[]): Promise<PGlite> {
  const { PGlite } = await loadPglite();
  const options = {
    startParams: [...PGlite.defaultStartParams, ...settings],
    initDbStartParams: [...settings],
  };
  if ('dataDir' in source) return new PGlite(source.dataDir, options);
  return source.initialData
    ? new PGlite({ ...options, loadDataDir: new Blob([source.initialData]) })
    : new PGlite('memory://', options);
}
