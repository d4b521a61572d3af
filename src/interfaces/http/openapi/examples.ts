import { SCHEMA_PREFIX, type JsonObject } from './schemas';

/**
 * An example value for a schema, assembled from the `examples` its fields carry (ApiField), so the
 * operation examples cannot drift from the field documentation. Undefined when a field lacks one.
 */
export function exampleOf(schema: unknown, schemas: Readonly<Record<string, JsonObject>>): unknown {
  if (!isObject(schema)) return undefined;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (typeof schema.$ref === 'string') return exampleOf(schemas[schema.$ref.slice(SCHEMA_PREFIX.length)], schemas);
  if (schema.type === 'array') {
    const item = exampleOf(schema.items, schemas);
    return item === undefined ? undefined : [item];
  }
  if (isObject(schema.properties)) {
    const required = Array.isArray(schema.required) ? schema.required : [];
    const entries = Object.entries(schema.properties)
      .filter(([name]) => required.includes(name))
      .map(([name, property]) => [name, exampleOf(property, schemas)] as const);
    return entries.some(([, value]) => value === undefined) ? undefined : Object.fromEntries(entries);
  }
  return undefined;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
