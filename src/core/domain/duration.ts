import { InvalidDuration } from './errors';

const DURATION = /^([1-9]\d{0,6})([mhd])$/;

export const DURATION_FORMS = "'<n>m' (minutes), '<n>h' (hours) or '<n>d' (days), n a whole number from 1";

/** A positive span of time, written `<n>m`, `<n>h` or `<n>d` as the spec's fast-forward and rewind take it. */
export class Duration {
  private constructor(
    readonly milliseconds: number,
    readonly text: string,
  ) {}

  static parse(text: string): Duration {
    const match = DURATION.exec(text);
    if (!match) throw new InvalidDuration(text);
    const [, amount, unit] = match;
    const unitMs = unit === 'm' ? 60_000 : unit === 'h' ? 3_600_000 : 86_400_000;
    return new Duration(Number(amount) * unitMs, text);
  }
}
