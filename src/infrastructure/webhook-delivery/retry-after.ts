/**
 * An answer's Retry-After (RFC 9110) as whole seconds from `now`: a number of seconds, or an
 * HTTP-date (a date already past is 0). Null when absent or unreadable, which the schedule then
 * decides alone.
 */
export function retryAfterSeconds(value: string | undefined, now: Date): number | null {
  const text = value?.trim() ?? '';
  if (/^\d+$/.test(text)) return Number(text);
  // The HTTP-date forms end in GMT (IMF-fixdate, RFC 850's); Date.parse alone would take '1.5' as a date.
  if (!/^[A-Za-z]{3,9}, [\w -]+ \d{2}:\d{2}:\d{2} GMT$/.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}
