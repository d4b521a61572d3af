import { parseDateTime } from '../../../core/domain/date-time';

/** Converts a date-time that the DTO already validated; failing here is a programming error. */
export function toInstant(text: string): Date {
  const instant = parseDateTime(text);
  if (!instant) throw new Error(`toInstant called with an unvalidated date-time: ${text}`);
  return instant;
}
