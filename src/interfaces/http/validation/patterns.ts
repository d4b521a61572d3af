// The shapes the service's validators accept, as JSON Schema patterns for the OpenAPI document
// (openapi/schemas.ts). A property test holds each pattern to its validator
// (tests/unit/interfaces/field-patterns.property.test.ts): what one accepts, the other does, but for
// the rules a pattern cannot say, which the test names.
import { MAX_WINDOW_MINUTES } from '../../../core/domain/timeline';

/**
 * RFC 3339, as parseDateTime reads it: each field in its range, fractions of up to nine digits, `Z`
 * or an offset, a year from 0001; no lookahead, which some JSON Schema validators and generators do
 * not take. Not said here: a day past its month's end (February 30) and an instant past 9999 or
 * before 0001 once the offset is applied.
 */
const YEAR = '(?:000[1-9]|00[1-9]\\d|0[1-9]\\d{2}|[1-9]\\d{3})';
const DATE = `${YEAR}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])`;
const TIME = '(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d{1,9})?';
const OFFSET = '(?:[Zz]|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)';
const DATE_TIME = `${DATE}[Tt]${TIME}${OFFSET}`;

export const DATE_TIME_PATTERN = `^${DATE_TIME}$`;

/** Two date-times, each as above, white space around each allowed (TimeRange.parse trims them). */
export const TIME_RANGE_PATTERN = `^\\s*${DATE_TIME}\\s*/\\s*${DATE_TIME}\\s*$`;

/** `<n> minutes` with n from 1 to MAX_WINDOW_MINUTES (10080), white space around it allowed. */
export const WINDOW_PATTERN = '^\\s*(?:[1-9]\\d{0,3}|100[0-7]\\d|10080) minutes?\\s*$';
if (MAX_WINDOW_MINUTES !== 10_080) throw new Error('WINDOW_PATTERN spells MAX_WINDOW_MINUTES out: change both');

/** A page's `next_cursor`: base64url text. Not said here: that it decodes to a position of a page. */
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]+$';
