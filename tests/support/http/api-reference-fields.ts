// The request fields docs/api.md documents for an operation, set against the OpenAPI document's:
// the same names, each with the same type and the same required or optional, and every bound the
// prose names (characters, a number's range) the bound the document's schema holds.
import type { OpenApiDocument, OpenApiOperation } from './openapi-contract';

type Json = { readonly [key: string]: unknown };

/** One request field as a reader of either source sees it. */
export interface RequestField {
  readonly name: string;
  /** `string`, `date-time`, `integer`, `array of strings`, `array`, ... */
  readonly type: string;
  readonly required: boolean;
}

/** A field of api.md's table, with its rules' text. */
export interface DocumentedField extends RequestField {
  readonly rules: string;
}

const TABLE_HEADER = /^\| (?:field|parameter) \| type \| rules \|$/m;
const ROW = /^\| `([^`]+)` \| ([^|]+?) \| (.*) \|$/;

/**
 * The fields of a section of api.md: its table of fields or parameters, or, without one, those of
 * the operation it says it takes the same as (`the same body as [\`POST /v1/x\`](#...)`).
 */
export function documentedFields(
  section: string,
  sectionOf: (heading: string) => string | undefined,
): DocumentedField[] {
  const header = TABLE_HEADER.exec(section);
  if (!header) {
    const same = /\bsame\b[^.]*?\[`([^`]+)`\]\(#[^)]+\)/.exec(section);
    const other = same?.[1] === undefined ? undefined : sectionOf(same[1]);
    return other === undefined ? [] : documentedFields(other, () => undefined);
  }
  const lines = section.slice(header.index).split('\n').slice(2);
  const rows = lines.slice(
    0,
    lines.findIndex((line) => !line.startsWith('|')),
  );
  return rows.map((line) => {
    const [, name = '', type = '', rules = ''] = ROW.exec(line) ?? [];
    return { name, type: type.trim(), required: rules.startsWith('required'), rules };
  });
}

/** The request fields of an operation in the document: its query parameters, or its JSON body's properties. */
export function documentFields(document: OpenApiDocument, operation: OpenApiOperation): RequestField[] {
  const query = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
  const body = operation.requestBody?.content['application/json']?.schema;
  if (!body) {
    return query.map((parameter) => ({
      name: parameter.name,
      type: typeOf(document, parameter.schema),
      required: parameter.required === true,
    }));
  }
  const schema = resolve(document, body);
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(propertiesOf(schema)).map(([name, property]) => ({
    name,
    type: typeOf(document, property),
    required: required.has(name),
  }));
}

/** The schema of one request field of an operation in the document. */
export function fieldSchema(document: OpenApiDocument, operation: OpenApiOperation, name: string): Json | undefined {
  const parameter = (operation.parameters ?? []).find((one) => one.in === 'query' && one.name === name);
  if (parameter) return resolve(document, parameter.schema);
  const body = operation.requestBody?.content['application/json']?.schema;
  const property = body && propertiesOf(resolve(document, body))[name];
  return property && resolve(document, property);
}

/**
 * Where a field's rules name a bound its schema does not hold: `1 to 1000 characters`,
 * `up to 200 characters`, `at most 254 characters` for text, `1 to 500` for a whole number.
 */
export function boundsDiffering(field: DocumentedField, schema: Json): string[] {
  const number = (text: string) => Number(text.replaceAll(',', ''));
  const wrong: string[] = [];
  const expect = (keyword: string, value: number) => {
    if (schema[keyword] !== value)
      wrong.push(`${field.name}: ${keyword} ${value} in api.md, ${String(schema[keyword])} in the document`);
  };
  if (field.type === 'string') {
    const range = /(\d[\d,]*) to (\d[\d,]*) characters/.exec(field.rules);
    if (range) {
      expect('minLength', number(range[1] ?? ''));
      expect('maxLength', number(range[2] ?? ''));
    }
    const most = /(?:up to|at most) (\d[\d,]*) characters/.exec(field.rules);
    if (most) expect('maxLength', number(most[1] ?? ''));
  }
  if (field.type === 'integer') {
    const range = /(\d[\d,]*) to (\d[\d,]*)/.exec(field.rules);
    if (range) {
      expect('minimum', number(range[1] ?? ''));
      expect('maximum', number(range[2] ?? ''));
    }
  }
  return wrong;
}

/** A field as one line, for lists that tests compare. */
export function described(field: RequestField): string {
  return `${field.name}: ${field.type}, ${field.required ? 'required' : 'optional'}`;
}

function typeOf(document: OpenApiDocument, raw: Json): string {
  const schema = resolve(document, raw);
  if (schema.type === 'array') {
    const items = isJson(schema.items) ? resolve(document, schema.items) : {};
    return items.type === 'string' ? 'array of strings' : 'array';
  }
  if (schema.type === 'string' && schema.format === 'date-time') return 'date-time';
  return String(schema.type);
}

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function propertiesOf(schema: Json): Record<string, Json> {
  const properties = isJson(schema.properties) ? schema.properties : {};
  return Object.fromEntries(Object.entries(properties).filter((entry): entry is [string, Json] => isJson(entry[1])));
}

function resolve(document: OpenApiDocument, schema: Json): Json {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/components/schemas/', '');
  const target = document.components.schemas[name];
  if (!target) throw new Error(`${ref} is not among the document's schemas`);
  return resolve(document, target);
}
