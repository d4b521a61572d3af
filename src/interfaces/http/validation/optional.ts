import { Transform } from 'class-transformer';
import { ValidateIf, type ValidationOptions } from 'class-validator';

/** Optional means absent: `null` is a wrong type like any other, not another way to omit a field. */
export function Optional(options?: ValidationOptions): PropertyDecorator {
  return ValidateIf((_object: unknown, value: unknown) => value !== undefined, options);
}

/**
 * Query strings carry text, so `?limit=20` arrives as "20". Only plain digits become a number:
 * `true`, `" 7 "` or `1e3` stay what they are and fail the integer check.
 */
export function FromDigits(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value,
  );
}
