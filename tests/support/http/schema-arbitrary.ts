// Values generated from the OpenAPI document's own request schemas (fast-check), for the property
// test that sends them: the keywords the document's request schemas use, and an error for any other,
// so a new keyword is met here before it is trusted.
import fc from 'fast-check';

export type Schema = Readonly<Record<string, unknown>>;

const KNOWN = new Set([
  '$ref',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'maxItems',
  'minItems',
  'uniqueItems',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'pattern',
  'format',
  'enum',
  'oneOf',
  'not',
  'description',
  'title',
  'examples',
]);

/** A value the schema accepts. `components` resolves `$ref`s to `#/components/schemas/...`. */
export function valueOf(schema: Schema, components: Readonly<Record<string, Schema>>): fc.Arbitrary<unknown> {
  const unknown = Object.keys(schema).filter((keyword) => !KNOWN.has(keyword));
  if (unknown.length > 0) throw new Error(`schema keywords not generated: ${unknown.join(', ')}`);
  if (typeof schema.$ref === 'string') return valueOf(resolved(schema, components), components);
  if (Array.isArray(schema.oneOf)) return fc.oneof(...schema.oneOf.map((form: Schema) => valueOf(form, components)));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  switch (schema.type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return fc.integer({ min: numberOr(schema.minimum, -1e9), max: numberOr(schema.maximum, 1e9) });
    case 'number':
      return fc.double({ min: numberOr(schema.minimum, -1e9), max: numberOr(schema.maximum, 1e9), noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const items = schema.items as Schema;
      const maxLength = Math.min(numberOr(schema.maxItems, 5), 5);
      const bounds = { minLength: numberOr(schema.minItems, 0), maxLength };
      if (schema.uniqueItems !== true) return fc.array(valueOf(items, components), bounds);
      // Elements compared as JSON, and no more of them than an enum has values.
      const values = Array.isArray(items.enum) ? items.enum.length : maxLength;
      return fc.uniqueArray(valueOf(items, components), {
        ...bounds,
        maxLength: Math.min(maxLength, values),
        selector: (value) => JSON.stringify(value),
      });
    }
    case 'object':
      return objectOf(schema, components);
    default:
      throw new Error(`schema type not generated: ${String(schema.type)}`);
  }
}

/** An object of the schema's properties: the required ones, and each other one or not. */
export function objectOf(schema: Schema, components: Readonly<Record<string, Schema>>): fc.Arbitrary<object> {
  if (typeof schema.$ref === 'string') return objectOf(resolved(schema, components), components);
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const entries = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => [name, valueOf(property, components)]),
  );
  return fc.record(entries, { requiredKeys: [...required].filter((name) => name in properties) });
}

/** The schema a `$ref` names, or the schema itself. */
export function resolved(schema: Schema, components: Readonly<Record<string, Schema>>): Schema {
  if (typeof schema.$ref !== 'string') return schema;
  const target = components[schema.$ref.replace('#/components/schemas/', '')];
  if (!target) throw new Error(`no schema ${schema.$ref}`);
  return target;
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const minLength = numberOr(schema.minLength, 0);
  const maxLength = numberOr(schema.maxLength, 100);
  const fits = (text: string) => text.length >= minLength && text.length <= maxLength;
  if (schema.format === 'email') return fc.emailAddress().filter(fits);
  if (schema.format === 'uri') return fc.webUrl({ validSchemes: ['https', 'http'] }).filter(fits);
  if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
  // Any text: Unicode beyond ASCII included, which a request carries as UTF-8.
  return fc.string({ unit: 'grapheme', minLength, maxLength: Math.min(maxLength, 60) }).filter(fits);
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}
