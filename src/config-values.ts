// Readers of one setting each: unset or empty takes the fallback, anything else is checked, and a
// wrong value adds a message to `problems` saying what was expected. A reader is a value that also
// says what it accepts, so that the settings are a table (settings.ts) from which the checks, the
// messages and the documented values all come.

export type Env = Readonly<Record<string, string | undefined>>;

export interface Reader<T> {
  /** Reads the variable `name` of `env`; a wrong value adds its message to `problems`. */
  readonly read: (env: Env, name: string, problems: string[]) => T;
  /** What it accepts, as its messages and the settings table say it: "on or off". */
  readonly accepts: string;
  /** A value as an operator writes it, where that is not `String(value)` (a method: a table holds every type). */
  shown?(value: T): string;
}

const WHOLE_MAX = 2_000_000_000;

/**
 * A whole number from `min` to `max`, described to the operator as `accepts`; `undefined` as the
 * fallback makes it optional, which the refusal says.
 */
function wholeNumberIn<F extends number | undefined>(
  fallback: F,
  min: number,
  max: number,
  accepts: string,
): Reader<number | F> {
  const unset = fallback === undefined ? ', or unset' : '';
  return {
    accepts,
    read: (env, name, problems) => {
      const text = env[name]?.trim() ?? '';
      if (text === '') return fallback;
      const value = Number(text);
      if (/^\d+$/.test(text) && value >= min && value <= max) return value;
      problems.push(`${name} must be ${accepts}${unset}, not '${env[name]}'.`);
      return fallback;
    },
  };
}

/** A duration in whole milliseconds from `min` to `max`. */
export function milliseconds(fallback: number, min: number, max: number): Reader<number> {
  return wholeNumberIn(fallback, min, max, `a whole number of milliseconds from ${min} to ${max}`);
}

/** A whole number from 1 to `max` of `what`. */
export function countFromOne(fallback: number, max: number, what: string): Reader<number> {
  return wholeNumberIn(fallback, 1, max, `a whole number from 1 to ${max} (${what})`);
}

/** A whole number from 0 up; `zero` says what 0 means (by default: the limit is off). */
export function wholeNumber(fallback: number, zero = 'off'): Reader<number> {
  return wholeNumberIn(fallback, 0, WHOLE_MAX, `a whole number from 0 (${zero}) to ${WHOLE_MAX}`);
}

/** A TCP port; `undefined` as the fallback makes it optional. */
export function port<F extends number | undefined>(fallback: F): Reader<number | F> {
  return wholeNumberIn(fallback, 0, 65_535, 'a whole number from 0 to 65535');
}

/** `on`/`off` (also `true`/`false`, `1`/`0`). */
export function onOrOff(fallback: boolean): Reader<boolean> {
  const accepts = 'on or off';
  return {
    accepts,
    shown: (value) => (value ? 'on' : 'off'),
    read: (env, name, problems) => {
      const text = env[name]?.trim().toLowerCase() ?? '';
      if (text === '') return fallback;
      if (['on', 'true', '1'].includes(text)) return true;
      if (['off', 'false', '0'].includes(text)) return false;
      problems.push(`${name} must be ${accepts}, not '${env[name]}'.`);
      return fallback;
    },
  };
}

/** Any text, trimmed, described to the operator as `accepts`. */
export function text<F extends string | undefined>(fallback: F, accepts: string): Reader<string | F> {
  return { accepts, read: (env, name) => env[name]?.trim() || fallback };
}

/** A PostgreSQL connection string, or unset; `unset` says what leaving it unset means. */
export function postgresUrl(unset: string): Reader<string | undefined> {
  const accepts = 'a postgresql:// connection string';
  return {
    accepts,
    read: (env, name, problems) => {
      const value = env[name]?.trim() || undefined;
      if (value === undefined || /^postgres(ql)?:\/\//.test(value)) return value;
      problems.push(`${name} must be ${accepts} (or unset${unset}).`);
      return undefined;
    },
  };
}

/** A secret of at least `minLength` characters, or unset; `unset` says what leaving it unset means. */
export function secret(minLength: number, unset: string): Reader<string | undefined> {
  const accepts = `at least ${minLength} characters`;
  return {
    accepts,
    // The message never repeats the value: it is a secret.
    read: (env, name, problems) => {
      const value = env[name]?.trim() || undefined;
      if (value === undefined || value.length >= minLength) return value;
      problems.push(`${name} must be ${accepts} (or unset, ${unset}).`);
      return undefined;
    },
  };
}

/**
 * Whole numbers of seconds separated by commas, each from 1 to `maxSeconds`, at most `maxCount`
 * of them: a schedule of waits, as the operator writes it.
 */
export function secondsList(
  fallback: readonly number[],
  maxCount: number,
  maxSeconds: number,
): Reader<readonly number[]> {
  const accepts = `whole seconds from 1 to ${maxSeconds} separated by commas, at most ${maxCount} of them`;
  return {
    accepts,
    shown: (value) => value.join(','),
    read: (env, name, problems) => {
      const text = env[name]?.trim() ?? '';
      if (text === '') return fallback;
      const parts = text.split(',').map((part) => part.trim());
      const values = parts.map(Number);
      const wellFormed = parts.every((part) => /^\d+$/.test(part)) && values.every((v) => v >= 1 && v <= maxSeconds);
      if (wellFormed && values.length <= maxCount) return values;
      problems.push(`${name} must be ${accepts}, not '${env[name]}'.`);
      return fallback;
    },
  };
}

/** One of `choices`, any case. */
export function oneOf<C extends string>(choices: readonly C[], fallback: C): Reader<C> {
  const accepts = `one of ${choices.join(', ')}`;
  return {
    accepts,
    read: (env, name, problems) => {
      const wanted = env[name]?.trim().toLowerCase() || fallback;
      const found = choices.find((choice) => choice === wanted);
      if (found) return found;
      problems.push(`${name} must be ${accepts}, not '${env[name]}'.`);
      return fallback;
    },
  };
}

/** Express's 'trust proxy': off, on, a number of hops, or the proxies' addresses; never refused. */
export function proxyTrust(): Reader<boolean | number | string> {
  return {
    accepts: "`false`, `true`, a number of hops, or the proxies' addresses or subnets (`loopback`, `10.0.0.0/8`, ...)",
    read: (env, name) => {
      const value = env[name]?.trim().toLowerCase() ?? '';
      if (value === '' || value === 'false' || value === '0') return false;
      if (value === 'true') return true;
      if (/^\d+$/.test(value)) return Number(value);
      return value;
    },
  };
}
