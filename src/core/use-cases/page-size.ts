/** A page size the client may ask for, made whole and kept within 1..max. */
export function pageSize(requested: number | undefined, fallback: number, max: number): number {
  const whole = requested !== undefined && Number.isFinite(requested) ? Math.trunc(requested) : fallback;
  return Math.max(1, Math.min(whole, max));
}
