import type { Env, Reader } from './config-values';

/**
 * A setting the service reads and checks at start: its variable, its reader (config-values.ts), and
 * for a default that follows from other settings, the reader made from them and the rule in words.
 */
export interface ServiceSetting {
  readonly key: string;
  readonly variable: string;
  /** Its section in .env.example and in docs/operations.md's table. */
  readonly topic: string;
  /** What it does; a `docs/<page>.md#<anchor>` in it is a link in docs/operations.md. */
  readonly about: string;
  readonly reader: Reader<unknown> | Derived<unknown>;
  /** How the default follows from other settings: .env.example leaves the line commented. */
  readonly rule?: string;
  /** What leaving it unset means, where its default is no value. */
  readonly unset?: string;
}

/**
 * A variable read by what the service runs on (Node, glibc, OpenTelemetry's SDK), listed for the
 * default the service gives it or for what the service itself makes of it; the rest is that
 * reader's, linked, not repeated.
 */
export interface OutsideSetting {
  readonly variable: string;
  readonly topic: string;
  readonly about: string;
  readonly readBy: { readonly name: string; readonly url: string };
  /** The value written in .env.example: '' when unset is the default. */
  readonly default: string;
  readonly unset?: string;
}

export type SettingRow = ServiceSetting | OutsideSetting;

/** A reader made from the settings read before it: its default or its bounds follow from them. */
type Derived<T> = (known: never) => Reader<T>;

type Row<T, Known> = Omit<ServiceSetting, 'key' | 'reader'> & {
  readonly reader: Reader<T> | ((known: Known) => Reader<T>);
};

export const isServiceSetting = (row: SettingRow): row is ServiceSetting => 'reader' in row;

/**
 * The settings in the order they are read, documented and listed: each row may build its reader
 * from those before it, which `Known` types as the table grows.
 */
export class SettingsTable<Known extends object> {
  private constructor(readonly rows: readonly SettingRow[]) {}

  static empty(): SettingsTable<Record<never, never>> {
    return new SettingsTable([]);
  }

  setting<K extends string, T>(key: K, row: Row<T, Known>): SettingsTable<Known & { readonly [P in K]: T }> {
    return new SettingsTable([...this.rows, { ...row, key }]);
  }

  outside(row: OutsideSetting): SettingsTable<Known> {
    return new SettingsTable([...this.rows, row]);
  }

  /** Each setting by its reader, every problem collected; a wrong value stands in as its fallback. */
  read(env: Env, problems: string[]): Known {
    const known: Record<string, unknown> = {};
    for (const row of this.rows.filter(isServiceSetting)) {
      known[row.key] = readerOf(row, known).read(env, row.variable, problems);
    }
    // Each row was read in order with the ones before it, as `setting` typed them.
    return known as Known;
  }

  /** Each setting's reader as it stands with no settings at all: what the documentation shows. */
  readersUnset(): ReadonlyMap<string, Reader<unknown>> {
    const known: Record<string, unknown> = {};
    const readers = new Map<string, Reader<unknown>>();
    for (const row of this.rows.filter(isServiceSetting)) {
      const reader = readerOf(row, known);
      readers.set(row.variable, reader);
      known[row.key] = reader.read({}, row.variable, []);
    }
    return readers;
  }
}

function readerOf(row: ServiceSetting, known: Record<string, unknown>): Reader<unknown> {
  // A derived reader takes the settings before it, which `setting` typed for it; `read` passes them.
  return typeof row.reader === 'function' ? (row.reader as (known: object) => Reader<unknown>)(known) : row.reader;
}
