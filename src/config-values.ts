// Readers of one setting each: unset or empty takes the default, anything else is checked, and a
// wrong value adds a message to `problems` saying what was expected.

/** A duration in whole milliseconds from `min` to `max`; unset or empty takes the default. */
export function milliseconds(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
  problems: string[],
): number {
  const text = env[name]?.trim() ?? '';
  if (text === '') return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    problems.push(`${name} must be a whole number of milliseconds from ${min} to ${max}, not '${env[name]}'.`);
    return fallback;
  }
  return value;
}

/** `on`/`off` (also `true`/`false`, `1`/`0`); unset or empty takes the default. */
export function onOrOff(env: NodeJS.ProcessEnv, name: string, fallback: boolean, problems: string[]): boolean {
  const text = env[name]?.trim().toLowerCase() ?? '';
  if (text === '') return fallback;
  if (['on', 'true', '1'].includes(text)) return true;
  if (['off', 'false', '0'].includes(text)) return false;
  problems.push(`${name} must be on or off, not '${env[name]}'.`);
  return fallback;
}

/** A whole number from 1 to `max`; unset or empty takes the default. */
export function countFromOne(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  max: number,
  what: string,
  problems: string[],
): number {
  const text = env[name]?.trim() ?? '';
  if (text === '') return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > max) {
    problems.push(`${name} must be a whole number from 1 to ${max} (${what}), not '${env[name]}'.`);
    return fallback;
  }
  return value;
}

/** A whole number from 0 up (0 turns a limit off); unset or empty takes the default. */
export function wholeNumber(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  problems: string[],
  zero = 'off',
): number {
  const text = env[name]?.trim() ?? '';
  if (text === '') return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value > 2_000_000_000) {
    problems.push(`${name} must be a whole number from 0 (${zero}) to 2000000000, not '${env[name]}'.`);
    return fallback;
  }
  return value;
}
