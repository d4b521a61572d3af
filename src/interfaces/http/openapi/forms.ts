/** A JSON Schema object (schemas.ts's JsonObject, spelt here since schemas.ts imports this file). */
type JsonObject = { [key: string]: unknown };

/** What the `excludesProperties` converter leaves on a property: the names it excludes. */
export const EXCLUDES = 'x-excludes';

/**
 * An object with an `ExcludesProperties` field (validation/decorators.ts) has two forms: that field
 * alone, or the fields it excludes, all of them required (their `ValidateIf` runs them whenever the
 * field is absent). As a `oneOf` of two closed objects, the document accepts exactly what the
 * server does; one object with every field optional would accept `{}`.
 */
export function splitForms(schema: JsonObject): JsonObject {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const starter = Object.entries(properties).find(
    ([, property]) => isRecord(property) && Array.isArray(property[EXCLUDES]),
  );
  if (!starter) return schema;
  const [name, marked] = starter;
  const { [EXCLUDES]: excluded, ...alone } = isRecord(marked) ? marked : {};
  const others = Array.isArray(excluded) ? excluded.filter((other): other is string => typeof other === 'string') : [];
  const required = Array.isArray(schema.required)
    ? schema.required.filter((field): field is string => typeof field === 'string')
    : [];
  const shared = Object.entries(properties).filter(([field]) => field !== name && !others.includes(field));
  const sharedRequired = required.filter((field) => shared.some(([sharedField]) => sharedField === field));
  const form = (title: string, own: Array<[string, unknown]>, ownRequired: string[]): JsonObject => ({
    title,
    type: 'object',
    properties: Object.fromEntries([...own, ...shared]),
    required: [...ownRequired, ...sharedRequired],
    additionalProperties: false,
  });
  const { properties: _properties, required: _required, ...rest } = schema;
  return {
    ...rest,
    oneOf: [
      form(
        others.join(' and '),
        Object.entries(properties).filter(([field]) => others.includes(field)),
        others,
      ),
      form(`${name} alone`, [[name, alone]], [name]),
    ],
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
