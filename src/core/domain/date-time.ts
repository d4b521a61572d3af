import { formatDateTime } from './date-time-format';
import { TimeOutOfRange } from './errors';

/** The span every clock reading, anchor and destination must stay within (years 0001-9999). */
export const EARLIEST_TIME = new Date('0001-01-01T00:00:00.000Z');
export const LATEST_TIME = new Date('9999-12-31T23:59:59.999Z');

// RFC 3339 date-time: the spec's form `YYYY-MM-DDThh:mm:ssZ`, plus the fractional seconds and
// numeric offsets that well-behaved clients also send.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Parses an RFC 3339 date-time into an instant truncated to whole seconds (the precision the API
 * answers in), or returns null when the text is not a real calendar moment (Feb 30, hour 24, ...).
 */
export function parseDateTime(text: string): Date | null {
  const match = RFC3339.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, , offset] = match;
  if (Number(year) < 1) return null;
  const instant = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}${offset.toUpperCase()}`);
  if (Number.isNaN(instant.getTime())) return null;
  // Date rolls some impossible fields over (Feb 30 -> Mar 1, 24:00 -> next day); reading the day back catches both.
  const check = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}Z`);
  if (
    Number.isNaN(check.getTime()) ||
    check.getUTCDate() !== Number(day) ||
    check.getUTCMonth() + 1 !== Number(month)
  ) {
    return null;
  }
  return withinRange(instant) ? instant : null;
}

export function withinRange(instant: Date): boolean {
  const ms = instant.getTime();
  return ms >= EARLIEST_TIME.getTime() && ms <= LATEST_TIME.getTime();
}

/** Builds the instant `ms` milliseconds after the epoch, refusing one outside the supported span. */
export function instantAt(ms: number): Date {
  const instant = new Date(ms);
  if (Number.isNaN(instant.getTime()) || !withinRange(instant)) {
    throw new TimeOutOfRange(Number.isNaN(instant.getTime()) ? 'beyond any calendar' : formatDateTime(instant));
  }
  return instant;
}

/** The API speaks in whole seconds; times the service records itself are cut to match. */
export function wholeSeconds(instant: Date): Date {
  return new Date(Math.floor(instant.getTime() / 1000) * 1000);
}
