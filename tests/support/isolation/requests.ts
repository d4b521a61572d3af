import type { Express } from 'express';
import request, { type Response } from 'supertest';
import type { Route } from '../../../src/interfaces/http/route';
import {
  EACH,
  formWith,
  IDENTIFIER_FIELDS,
  inputSchemaOf,
  isRecord,
  pathParameterNames,
  resolve,
  type EntryPoint,
  type Kind,
  type OpenApiDocument,
  type Schema,
  type Segment,
} from './identifier-fields';

/** An account's own records, one of each kind: what its valid requests name. */
export type OwnRecords = Readonly<Record<Kind, string>>;

/** The identifier to put where an entry point takes one; everything else stays valid. */
export interface Target {
  readonly entry: EntryPoint;
  readonly value: string;
}

export interface OperationRequest {
  readonly route: Route;
  readonly url: string;
  /** The body (POST) or parameters (GET); absent for an operation without input. */
  readonly input?: Readonly<Record<string, unknown>>;
}

/**
 * A valid request to a route, built from its documented example: identifier fields name the
 * account's own records when required and are left out when optional, except the target, which
 * carries the given identifier (inside a one-element list where the field is a list).
 */
export function requestFor(
  route: Route,
  document: OpenApiDocument,
  own: OwnRecords,
  target?: Target,
): OperationRequest {
  const example = route.docs?.example ?? {};
  const parameterNames = pathParameterNames(route);
  const url = route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_match, name: string) => {
    const value =
      target?.entry.in === 'path' && target.entry.path[0] === name ? target.value : ownValue(name, own, example[name]);
    return encodeURIComponent(String(value));
  });
  const schema = inputSchemaOf(route, document);
  if (schema === undefined) return { route, url };
  const rest = Object.fromEntries(Object.entries(example).filter(([name]) => !parameterNames.includes(name)));
  const inInput = target?.entry.in === 'input' ? target : undefined;
  const input = build(schema, rest, [], { document, own, target: inInput });
  return { route, url, input: isRecord(input) ? input : {} };
}

/**
 * Sends the request with an account's key: a POST or PATCH with a JSON body, a GET with a query string (or a
 * JSON body for nested values), a DELETE as it is.
 */
export function send(
  app: Express,
  authorization: string,
  operation: OperationRequest,
  headers: Readonly<Record<string, string>> = {},
): Promise<Response> {
  const { route, url, input } = operation;
  if (route.method === 'delete') return request(app).delete(url).set('Authorization', authorization).set(headers);
  if (route.method === 'post' || route.method === 'patch') {
    const sent = request(app)[route.method](url).set('Authorization', authorization).set(headers);
    return input === undefined ? sent : sent.send(input);
  }
  const get = request(app).get(url).set('Authorization', authorization).set(headers);
  if (input === undefined) return get;
  const flat = Object.values(input).every((value) => typeof value === 'string' || typeof value === 'number');
  return flat ? get.query(input) : get.send(input);
}

interface BuildContext {
  readonly document: OpenApiDocument;
  readonly own: OwnRecords;
  readonly target: Target | undefined;
}

function build(schema: Schema, example: unknown, path: readonly Segment[], context: BuildContext): unknown {
  // Of an object's forms, the one that takes the target field, or else the example's fields.
  const field = context.target?.entry.path[path.length];
  const names =
    targetsBelow(context, path) && typeof field === 'string' ? [field] : Object.keys(isRecord(example) ? example : {});
  const resolved = formWith(resolve(schema, context.document), names);
  if (resolved.type === 'array') return buildArray(resolved, example, path, context);
  if (!isRecord(resolved.properties)) return example;
  const required = Array.isArray(resolved.required) ? resolved.required : [];
  const given = isRecord(example) ? example : {};
  const built: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(resolved.properties)) {
    const here = [...path, name];
    const propertySchema = isRecord(property) ? property : {};
    if (targets(context, here)) built[name] = context.target?.value;
    else if (targetsBelow(context, here)) built[name] = build(propertySchema, given[name], here, context);
    else if (name in IDENTIFIER_FIELDS) {
      if (required.includes(name)) built[name] = ownValue(name, context.own, given[name]);
    } else if (given[name] !== undefined) built[name] = build(propertySchema, given[name], here, context);
  }
  return built;
}

function buildArray(schema: Schema, example: unknown, path: readonly Segment[], context: BuildContext): unknown[] {
  const here: readonly Segment[] = [...path, EACH];
  const items = isRecord(schema.items) ? schema.items : {};
  const elements = Array.isArray(example) ? example : [];
  if (targets(context, here)) return [context.target?.value];
  if (targetsBelow(context, here)) {
    // The example's element of the form that takes the target field (an item change, not an event change).
    const field = context.target?.entry.path[here.length];
    const base = elements.find((element) => isRecord(element) && typeof field === 'string' && field in element);
    return [build(items, base ?? {}, here, context)];
  }
  // Optional identifiers are left out, so an element that names one would lose its form: drop it.
  return elements.filter((element) => !namesIdentifier(element)).map((element) => build(items, element, here, context));
}

function namesIdentifier(element: unknown): boolean {
  return isRecord(element) && Object.keys(element).some((name) => name in IDENTIFIER_FIELDS);
}

function targets(context: BuildContext, path: readonly Segment[]): boolean {
  const target = context.target?.entry.path;
  return target !== undefined && target.length === path.length && startsWith(target, path);
}

function targetsBelow(context: BuildContext, path: readonly Segment[]): boolean {
  const target = context.target?.entry.path;
  return target !== undefined && target.length > path.length && startsWith(target, path);
}

function startsWith(path: readonly Segment[], prefix: readonly Segment[]): boolean {
  return prefix.every((segment, index) => path[index] === segment);
}

/** The account's own record for an identifier field (its first kind); the example's value for any other field. */
function ownValue(name: string, own: OwnRecords, example: unknown): unknown {
  const kind = IDENTIFIER_FIELDS[name]?.[0];
  return kind === undefined ? example : own[kind];
}
