import { parseDateTime } from './date-time';
import { InvalidTimeRange } from './errors';

/** A closed interval of time, written `<start>/<end>` (ISO 8601 interval of two UTC date-times). */
export class TimeRange {
  private constructor(
    readonly start: Date,
    readonly end: Date,
  ) {}

  static parse(text: string): TimeRange {
    const parts = text.split('/');
    const [start, end] = parts.map((part) => parseDateTime(part.trim()));
    if (parts.length !== 2 || !start || !end)
      throw new InvalidTimeRange(text, 'it is not two ISO 8601 date-times separated by /');
    if (start.getTime() > end.getTime()) throw new InvalidTimeRange(text, 'its start is after its end');
    return new TimeRange(start, end);
  }

  contains(instant: Date): boolean {
    return instant.getTime() >= this.start.getTime() && instant.getTime() <= this.end.getTime();
  }
}
