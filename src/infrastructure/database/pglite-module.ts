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
