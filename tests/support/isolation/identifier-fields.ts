import { MAX_ID_LENGTH } from '../../../src/interfaces/http/dtos/limits';
import { openApiPath } from '../../../src/interfaces/http/openapi/operation';
import type { Route } from '../../../src/interfaces/http/route';

/** The kinds of record a request can name. Each account of the isolation test owns some of every kind. */
export type Kind = 'timeline' | 'anchor' | 'item' | 'event' | 'webhookEndpoint' | 'webhookMessage' | 'apiKey';

/**
 * What each identifier field of the API names, by field name. Where identifiers enter is read from
 * the OpenAPI document, which is generated from the route table's input classes; what the DTO
 * metadata cannot say is which kinds of record a field names, and that is all this map says.
 * `identifierEntryPoints` reports an identifier-like field missing here, and an entry here that no
 * operation takes, so the map cannot silently fall behind the routes.
 */
export const IDENTIFIER_FIELDS: Readonly<Record<string, readonly Kind[]>> = {
  timeline_id: ['timeline'],
  // A timeline, or an anchor to go home to; `primary` is every account's own.
  destination: ['timeline', 'anchor'],
  anchor_id: ['anchor'],
  item_id: ['item'],
  items_transported: ['item'],
  event_id: ['event'],
  // An event id or an event's name: free text by its limits, so no rule below would find it.
  significant_event: ['event'],
  endpoint_id: ['webhookEndpoint'],
  message_id: ['webhookMessage'],
  key_id: ['apiKey'],
};

/**
 * Fields held to an identifier's length that name nothing: an API key's label is at most 100
 * characters, as the dashboard has always held it, which is also every identifier's bound.
 */
const NOT_IDENTIFIERS: ReadonlySet<string> = new Set(['name']);

/**
 * A field is identifier-like when it is a path parameter, when its name says so (`*_id`, `*_ids`),
 * or when it is held to the length every identifier field is held to (dtos/limits.ts).
 */
const IDENTIFIER_NAME = /(^|_)ids?$/i;

/** Stands for "every element of the array" in a field path. */
export const EACH: unique symbol = Symbol('each element');
export type Segment = string | typeof EACH;

/** A JSON Schema of the served OpenAPI document, read loosely. */
export type Schema = Readonly<Record<string, unknown>>;

export interface OpenApiDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, Schema>>>>;
  readonly components: { readonly schemas: Readonly<Record<string, Schema>> };
}

/** One place where an operation takes an identifier. */
export interface EntryPoint {
  readonly route: Route;
  /** A path parameter, or a field of the body (POST) or parameters (GET). */
  readonly in: 'path' | 'input';
  /** The parameter's name, or the path to the field in the input object. */
  readonly path: readonly Segment[];
  readonly kinds: readonly Kind[];
  /** `POST /v1/paradox-checks proposed_changes[].item_id`, for messages. */
  readonly label: string;
}

/** A field an operation takes, with its schema. */
interface Field {
  readonly route: Route;
  readonly in: 'path' | 'input';
  readonly path: readonly Segment[];
  /** The property (or parameter) name the value sits under. */
  readonly name: string;
  readonly schema: Schema;
}

export interface IdentifierCoverage {
  readonly entryPoints: readonly EntryPoint[];
  /** Identifier-like fields that IDENTIFIER_FIELDS does not cover, one sentence each. */
  readonly unmapped: readonly string[];
  /** Names in IDENTIFIER_FIELDS that no operation takes. */
  readonly unused: readonly string[];
}

/** Every place an operation of the route table takes an identifier, as the OpenAPI document describes its input. */
export function identifierEntryPoints(routes: readonly Route[], document: OpenApiDocument): IdentifierCoverage {
  const fields = routes.flatMap((route) => fieldsOf(route, document));
  const entryPoints: EntryPoint[] = [];
  const unmapped: string[] = [];
  for (const field of fields) {
    const kinds = IDENTIFIER_FIELDS[field.name];
    const where = field.in === 'path' ? `(path) ${field.name}` : render(field.path);
    const label = `${field.route.method.toUpperCase()} ${field.route.path} ${where}`;
    if (kinds) entryPoints.push({ route: field.route, in: field.in, path: field.path, kinds, label });
    else if (identifierLike(field))
      unmapped.push(
        `${label} looks like an identifier: add ${field.name} to IDENTIFIER_FIELDS with the kinds of record it names`,
      );
  }
  const taken = new Set(fields.map((field) => field.name));
  const unused = Object.keys(IDENTIFIER_FIELDS).filter((name) => !taken.has(name));
  return { entryPoints, unmapped, unused };
}

/** The operation of the served document that describes a route. */
export function operationOf(route: Route, document: OpenApiDocument): Schema {
  const operation = document.paths[openApiPath(route.path)]?.[route.method];
  if (!operation) throw new Error(`the OpenAPI document has no ${route.method.toUpperCase()} ${route.path}`);
  return operation;
}

/**
 * The schema of a route's input object: its request body for a POST; for a GET, its query
 * parameters gathered into one object (a GET takes them as a query string or a JSON body alike).
 */
export function inputSchemaOf(route: Route, document: OpenApiDocument): Schema | undefined {
  const operation = operationOf(route, document);
  if (route.method === 'get') {
    const query = parametersOf(operation).filter((parameter) => parameter.in === 'query');
    if (query.length === 0) return undefined;
    return {
      type: 'object',
      properties: Object.fromEntries(query.map((parameter) => [parameter.name, parameter.schema])),
      required: query.filter((parameter) => parameter.required).map((parameter) => parameter.name),
    };
  }
  const body = record(record(record(operation.requestBody).content)['application/json']).schema;
  return isRecord(body) ? body : undefined;
}

/** The form of a `oneOf` whose properties include every one of `names` (the schema itself when it has no forms). */
export function formWith(schema: Schema, names: readonly string[]): Schema {
  const forms = Array.isArray(schema.oneOf) ? schema.oneOf.map(record) : [schema];
  return forms.find((form) => names.every((name) => name in record(form.properties))) ?? schema;
}

/** Follows a `$ref` to the component it names. */
export function resolve(schema: unknown, document: OpenApiDocument): Schema {
  const node = record(schema);
  if (typeof node.$ref !== 'string') return node;
  const name = node.$ref.split('/').pop() ?? '';
  const target = document.components.schemas[name];
  if (!target) throw new Error(`the OpenAPI document has no schema ${name}`);
  return target;
}

export function pathParameterNames(route: Route): string[] {
  return [...route.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1] ?? '');
}

function fieldsOf(route: Route, document: OpenApiDocument): Field[] {
  const operation = operationOf(route, document);
  const inPath = parametersOf(operation)
    .filter((parameter) => parameter.in === 'path')
    .map((parameter): Field => ({
      route,
      in: 'path',
      path: [parameter.name],
      name: parameter.name,
      schema: record(parameter.schema),
    }));
  const input = inputSchemaOf(route, document);
  return [...inPath, ...(input === undefined ? [] : leaves(route, input, [], '', document))];
}

/** The fields of an input schema down to its strings and numbers, through nested objects and arrays. */
function leaves(
  route: Route,
  schema: Schema,
  path: readonly Segment[],
  name: string,
  document: OpenApiDocument,
): Field[] {
  const resolved = resolve(schema, document);
  if (Array.isArray(resolved.oneOf))
    return resolved.oneOf.flatMap((form) => leaves(route, record(form), path, name, document));
  if (isRecord(resolved.properties)) {
    return Object.entries(resolved.properties).flatMap(([property, inner]) =>
      leaves(route, record(inner), [...path, property], property, document),
    );
  }
  if (resolved.type === 'array') return leaves(route, record(resolved.items), [...path, EACH], name, document);
  return [{ route, in: 'input', path, name, schema: resolved }];
}

function identifierLike(field: Field): boolean {
  if (field.in === 'path' || IDENTIFIER_NAME.test(field.name)) return true;
  return field.schema.maxLength === MAX_ID_LENGTH && !NOT_IDENTIFIERS.has(field.name);
}

interface Parameter {
  readonly name: string;
  readonly in: string;
  readonly required: boolean;
  readonly schema: unknown;
}

function parametersOf(operation: Schema): Parameter[] {
  const parameters = Array.isArray(operation.parameters) ? operation.parameters : [];
  return parameters.filter(isRecord).map((parameter) => ({
    name: String(parameter.name),
    in: String(parameter.in),
    required: parameter.required === true,
    schema: parameter.schema,
  }));
}

export function render(path: readonly Segment[]): string {
  return path.map((segment, index) => (segment === EACH ? '[]' : index === 0 ? segment : `.${segment}`)).join('');
}

export function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function record(value: unknown): Schema {
  return isRecord(value) ? value : {};
}
