import { IsDefined, IsNotEmpty, IsString, MaxLength, registerDecorator, type ValidationOptions } from 'class-validator';

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
