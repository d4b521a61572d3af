import {
  IsDefined,
  IsNotEmpty,
  IsString,
  Matches,
  MaxLength,
  registerDecorator,
  type ValidationOptions,
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { CURSOR_PATTERN } from './patterns';

const BLANK = '$property must not be empty or only white space';

/** Missing and `null` are one fault, reported before any other rule of the field. */
export function Required(): PropertyDecorator {
  return IsDefined({ message: '$property is required' });
}

/**
 * Applies rules in the order given. class-validator checks a field's rules in the order they were
 * registered and stops at the first fault, and stacked decorators register bottom-up: listing them
 * here makes the fault reported the first of the list (the type before the length).
 */
export function Checks(...rules: PropertyDecorator[]): PropertyDecorator {
  return (target, propertyName) => rules.forEach((rule) => rule(target, propertyName));
}

/** Text with something other than white space in it. */
export function IsNotBlank(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isNotBlank',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: BLANK, ...options },
      validator: { validate: (value: unknown) => typeof value === 'string' && value.trim() !== '' },
    });
}

/** Free text a person reads (a description, a name, a place, an action): a string, not blank, at most `max` long. */
export function Text(max: number): PropertyDecorator {
  // IsNotEmpty gives the OpenAPI schema its minLength, IsNotBlank its pattern (openapi/schemas.ts).
  return Checks(IsString(), IsNotEmpty({ message: BLANK }), IsNotBlank(), MaxLength(max));
}

/** An identifier: looked up as given, so only its type and length are checked here. */
export function Identifier(max: number): PropertyDecorator {
  return Checks(IsString(), IsNotEmpty({ message: '$property must not be empty' }), MaxLength(max));
}

/** A page's cursor: a previous page's `next_cursor`, base64url (what it decodes to is checked where it is read). */
export function Cursor(): PropertyDecorator {
  return Checks(
    IsString(),
    MaxLength(200),
    Matches(new RegExp(CURSOR_PATTERN), { message: '$property must be a next_cursor value from a previous page' }),
    (target, property) => CURSOR_DOCUMENTATION(target, String(property)),
  );
}

const CURSOR_DOCUMENTATION = JSONSchema({
  description:
    'The `next_cursor` of the previous page of this listing, as it was given; any other text is refused ' +
    '(`validation_failed`) even when it matches the pattern.',
});
