import { JSONSchema } from 'class-validator-jsonschema';

export interface FieldDocumentation {
  /** Shown in the document; the operation examples are assembled from these. */
  readonly example: unknown;
  readonly description?: string;
  /** The field is always present but may be `null`. */
  readonly nullable?: boolean;
}

/**
 * Documentation of one field of a response class: the class-validator decorators give its type and
 * format, this gives what a reader needs beyond them.
 */
export function ApiField({ example, description, nullable = false }: FieldDocumentation): PropertyDecorator {
  const decorate = JSONSchema((schema) => {
    const typed = nullable ? { anyOf: [schema, { type: 'null' as const }] } : schema;
    return { ...typed, ...(description === undefined ? {} : { description }), examples: [example] };
  });
  return (target, property) => decorate(target, String(property));
}
