import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { getMetadataStorage, validateSync, type ValidationError } from 'class-validator';
import { Problem, type FieldError } from '../problem';
import { unsafeJson } from './untrusted-json';
import { cacheValidationMetadata } from './validation-metadata-cache';

cacheValidationMetadata(getMetadataStorage());

/**
 * Turns untrusted JSON into a validated DTO, or throws a 400 problem naming every field at fault.
 * Unknown fields are refused rather than ignored: a misspelt optional field must not pass silently.
 */
export function validateInput<T extends object>(dto: ClassConstructor<T>, input: unknown): T {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw Problem.validation([{ field: '(body)', message: 'the request body must be a JSON object' }]);
  }
  const unsafe = unsafeJson(input);
  if (unsafe) throw Problem.validation([unsafe]);
  // class-transformer silently drops keys such as __proto__ and constructor: check own keys first.
  const known = knownProperties(dto);
  const unknown = Object.keys(input).filter((key) => !known.has(key));
  if (unknown.length > 0)
    throw Problem.validation(unknown.map((field) => ({ field, message: 'is not a known field' })));
  const instance = plainToInstance(dto, input);
  const errors = validateSync(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
  });
  if (errors.length > 0) throw Problem.validation(errors.flatMap((error) => fieldErrors(error, '')));
  return instance;
}

/** Decorators register a class's fields when it is defined, so each class is looked up once. */
const knownByDto = new WeakMap<ClassConstructor<object>, ReadonlySet<string>>();

function knownProperties(dto: ClassConstructor<object>): ReadonlySet<string> {
  let known = knownByDto.get(dto);
  if (!known) {
    known = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(dto, '', true, false)
        .map((meta) => meta.propertyName),
    );
    knownByDto.set(dto, known);
  }
  return known;
}

function fieldErrors(error: ValidationError, parent: string): FieldError[] {
  const field = !parent
    ? error.property
    : /^\d+$/.test(error.property)
      ? `${parent}[${error.property}]`
      : `${parent}.${error.property}`;
  const own = Object.values(error.constraints ?? {}).map((message) => ({
    field,
    message: message
      .replace(/^property (\S+) should not exist$/, 'is not a known field')
      // class-validator's wording for a list entry that is not an object names the list, not the entry.
      .replace(/^each value in nested property \S+ must be either object or array$/, `${field} must be an object`),
  }));
  return [...own, ...(error.children ?? []).flatMap((child) => fieldErrors(child, field))];
}
