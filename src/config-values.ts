// Readers of one setting each: unset or empty takes the fallback, anything else is checked, and a
// wrong value adds a message to `problems` saying what was expected. A reader is a value, so that
// the settings are a table (config.ts): each variable with its reader and its fallback.

export type Env = Readonly<Record<string, string | undefined>>;

/** Reads the variable `name` of `env`; a wrong value adds its message to `problems`. */
export type Reader<T> = (env: Env, name: string, problems: string[]) => T;

const WHOLE_MAX = 2_000_000_000;

/** A whole number from `min` to `max`, described to the operator as `expected`. */
function wholeNumberIn(fallback: number, min: number, max: number, expected: string): Reader<number> {
  return (env, name, problems) => {
    const text = env[name]?.trim() ?? '';
    if (text === '') return fallback;
    const value = Number(text);
    if (/^\d+$/.test(text) && value >= min && value <= max) return value;
    problems.push(`${name} must be ${expected}, not '${env[name]}'.`);
    return fallback;
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
  return (env, name, problems) => {
    const text = env[name]?.trim() ?? '';
    if (text === '') return fallback;
    const value = Number(text);
    if (Number.isInteger(value) && value >= 0 && value <= 65_535) return value;
    const unset = fallback === undefined ? ', or unset' : '';
    problems.push(`${name} must be a whole number from 0 to 65535${unset}, not '${env[name]}'.`);
    return fallback;
  };
}

/** `on`/`off` (also `true`/`false`, `1`/`0`). */
export function onOrOff(fallback: boolean): Reader<boolean> {
  return (env, name, problems) => {
    const text = env[name]?.trim().toLowerCase() ?? '';
    if (text === '') return fallback;
    if (['on', 'true', '1'].includes(text)) return true;
    if (['off', 'false', '0'].includes(text)) return false;
    problems.push(`${name} must be on or off, not '${env[name]}'.`);
    return fallback;
  };
}

/** Any text, trimmed. */
export function text<F extends string | undefined>(fallback: F): Reader<string | F> {
  return (env, name) => env[name]?.trim() || fallback;
}

/** A PostgreSQL connection string, or unset; `unset` says what leaving it unset means. */
export function postgresUrl(unset: string): Reader<string | undefined> {
  return (env, name, problems) => {
    const value = env[name]?.trim() || undefined;
    if (value === undefined || /^postgres(ql)?:\/\//.test(value)) return value;
    problems.push(`${name} must be a postgresql:// connection string (or unset${unset}).`);
    return undefined;
  };
}

/** A secret of at least `minLength` characters, or unset; `unset` says what leaving it unset means. */
export function secret(minLength: number, unset: string): Reader<string | undefined> {
  return (env, name, problems) => {
    const value = env[name]?.trim() || undefined;
    if (value === undefined || value.length >= minLength) return value;
    problems.push(`${name} must be at least ${minLength} characters (or unset, ${unset}).`);
    return undefined;
  };
}

/** One of `choices`, any case. */
export function oneOf<C extends string>(choices: readonly C[], fallback: C): Reader<C> {
  return (env, name, problems) => {
    const wanted = env[name]?.trim().toLowerCase() || fallback;
    const found = choices.find((choice) => choice === wanted);
    if (found) return found;
    problems.push(`${name} must be one of ${choices.join(', ')}, not '${env[name]}'.`);
    return fallback;
  };
}

/** A setting that is no more: naming it is a problem that says what replaced it. */
export function retired(replacement: string): Reader<void> {
  return (env, name, problems) => {
    if (env[name] !== undefined) problems.push(`${name} is now ${replacement}`);
  };
}
