/**
 * Formats an instant in the spec's form `YYYY-MM-DDThh:mm:ssZ`. Every instant of every answer goes
 * through here (two per event, 200 a page), so it is written out by hand: a third of the time of
 * cutting `toISOString()`, which formats through the C library (docs/performance.md).
 */
export function formatDateTime(instant: Date): string {
  const year = instant.getUTCFullYear();
  // Outside four digits toISOString writes a signed six-digit year, which it is left to do.
  if (!(year >= 0 && year <= 9999)) return `${instant.toISOString().slice(0, -5)}Z`;
  return (
    `${year < 1000 ? String(year).padStart(4, '0') : year}-${two(instant.getUTCMonth() + 1)}-` +
    `${two(instant.getUTCDate())}T${two(instant.getUTCHours())}:${two(instant.getUTCMinutes())}:` +
    `${two(instant.getUTCSeconds())}Z`
  );
}

function two(value: number): string {
  return value < 10 ? `0${value}` : `${value}`;
}
