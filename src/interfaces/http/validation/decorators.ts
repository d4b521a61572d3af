import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';
import { parseDateTime } from '../../../core/domain/date-time';
import { Duration, DURATION_FORMS } from '../../../core/domain/duration';
import { DomainError } from '../../../core/domain/errors';
import { TimeRange } from '../../../core/domain/time-range';
import { MAX_WINDOW_MINUTES } from '../../../core/domain/timeline';
import { readWebhookUrl } from '../../../core/domain/webhook-endpoint';

export const DATE_TIME_HINT =
  'an ISO 8601 date-time with Z or an offset, between years 0001 and 9999, like 2024-05-01T12:00:00Z';

/** A real RFC 3339 date-time within years 0001-9999. */
export function IsDateTime(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isDateTime',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `$property must be ${DATE_TIME_HINT}`, ...options },
      validator: { validate: (value: unknown) => typeof value === 'string' && parseDateTime(value) !== null },
    });
}

const WINDOW = /^([1-9]\d{0,4}) minutes?$/;

/** Reads `<n> minutes` (the form timelines report their window in) as whole minutes, or null. */
export function parseWindow(text: string): number | null {
  const match = WINDOW.exec(text.trim());
  const minutes = match ? Number(match[1]) : NaN;
  return minutes >= 1 && minutes <= MAX_WINDOW_MINUTES ? minutes : null;
}

export function IsWindow(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isWindow',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message: `$property must be '<n> minutes' with n from 1 to ${MAX_WINDOW_MINUTES}, like '12 minutes'`,
        ...options,
      },
      validator: { validate: (value: unknown) => typeof value === 'string' && parseWindow(value) !== null },
    });
}

/** The property may only be given when none of `others` is: it starts a different form of the object. */
export function ExcludesProperties(others: readonly string[], options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'excludesProperties',
      target: target.constructor,
      propertyName: String(propertyName),
      // Read by the OpenAPI document (openapi/forms.ts), which states the two forms as a oneOf.
      constraints: [others],
      options: { message: `$property cannot be combined with ${others.join(' or ')}`, ...options },
      validator: {
        validate: (value: unknown, args: ValidationArguments) =>
          value === undefined || others.every((other) => Reflect.get(args.object, other) === undefined),
      },
    });
}

/** True when the core's validating factory accepts the text (it throws a DomainError otherwise). */
export function acceptedBy(parse: (text: string) => unknown): (value: unknown) => boolean {
  return (value) => {
    if (typeof value !== 'string') return false;
    try {
      parse(value);
      return true;
    } catch (error) {
      if (error instanceof DomainError) return false;
      throw error;
    }
  };
}

export function IsDuration(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isDuration',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `$property must be ${DURATION_FORMS}, like '90m'`, ...options },
      validator: { validate: acceptedBy(Duration.parse) },
    });
}

export function IsTimeRange(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isTimeRange',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message:
          '$property must be <start>/<end>, two ISO 8601 date-times with Z or an offset, the start not after ' +
          'the end, like 2024-01-01T00:00:00Z/2024-01-02T00:00:00Z',
        ...options,
      },
      validator: { validate: acceptedBy(TimeRange.parse) },
    });
}

const WIDEST_URL_POLICY = { allowPrivateUrls: true } as const;

/**
 * The shape of a webhook endpoint's URL (readWebhookUrl), read as the widest setting reads it: `http`
 * too. Whether this service takes `http` (WEBHOOK_ALLOW_PRIVATE_URLS) is the use case's to say, in
 * the same words, as the setting is not the edge's to know.
 */
export function IsWebhookUrl(options?: ValidationOptions): PropertyDecorator {
  const faultOf = (value: unknown) =>
    typeof value === 'string' ? readWebhookUrl(value, WIDEST_URL_POLICY).fault : 'must be a string';
  return (target, propertyName) =>
    registerDecorator({
      name: 'isWebhookUrl',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: (args: ValidationArguments) => `${args.property} ${faultOf(args.value)}`, ...options },
      validator: { validate: (value: unknown) => faultOf(value) === undefined },
    });
}
