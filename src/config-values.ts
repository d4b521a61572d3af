// Readers of one setting each: unset or empty takes the default, anything else is checked, and a
// wrong value adds a message to `problems` saying what was expected.

/** A duration in whole milliseconds from `min` to `max`. */
export function milliseconds(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
  problems: string[],
): number {
  return wholeNumberIn(
    env,
    name,
    fallback,
    [min, max],
    problems,
    `a whole number of milliseconds from ${min} to ${max}`,
  );
}

/** A whole number from 1 to `max` of `what`. */
export function countFromOne(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  max: number,
  what: string,
  problems: string[],
): number {
  return wholeNumberIn(env, name, fallback, [1, max], problems, `a whole number from 1 to ${max} (${what})`);
}

/** A whole number from 0 up (0 turns a limit off). */
export function wholeNumber(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  problems: string[],
  zero = 'off',
): number {
  const max = 2_000_000_000;
  return wholeNumberIn(env, name, fallback, [0, max], problems, `a whole number from 0 (${zero}) to ${max}`);
}

/** `on`/`off` (also `true`/`false`, `1`/`0`). */
export function onOrOff(env: NodeJS.ProcessEnv, name: string, fallback: boolean, problems: string[]): boolean {
  const text = env[name]?.trim().toLowerCase() ?? '';
  if (text === '') return fallback;
  if (['on', 'true', '1'].includes(text)) return true;
  if (['off', 'false', '0'].includes(text)) return false;
  problems.push(`${name} must be on or off, not '${env[name]}'.`);
  return fallback;
}

function wholeNumberIn(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  [min, max]: readonly [number, number],
  problems: string[],
  expected: string,
): number {
  const text = env[name]?.trim() ?? '';
  if (text === '') return fallback;
  const value = Number(text);
  if (/^\d+$/.test(text) && value >= min && value <= max) return value;
  problems.push(`${name} must be ${expected}, not '${env[name]}'.`);
  return fallback;
}
