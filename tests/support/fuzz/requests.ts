import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { Method } from '../../../src/interfaces/http/route';
import { hostileString, mutated, objectOf, wrongType, deeplyNested, type KnownValues, type Schema } from './values';

/**
 * URLs stay well under Node's 16 KiB limit on the request head, which answers 431 before the app
 * sees the request (and which a proxy in front enforces first anyway).
 */
const MAX_QUERY_LENGTH = 8_000;

/** One generated HTTP request, as bytes on the wire will carry it. */
export interface FuzzRequest {
  readonly method: string;
  /** Path and query string, already %-encoded where a client would encode them. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  /** Sent with `Transfer-Encoding: chunked` instead of `Content-Length`. */
  readonly chunked?: boolean;
}

/** What the fuzzer needs to know of a route of the route table. */
export interface FuzzedRoute {
  readonly method: Method;
  readonly path: string;
  readonly authenticated: boolean;
  /** The JSON Schema of its body (POST) or parameters (GET), from the OpenAPI document. */
  readonly input?: Schema;
}

export interface FuzzContext {
  readonly components: Readonly<Record<string, Schema>>;
  readonly known: KnownValues;
  /** A working API key of the account most requests act for. */
  readonly apiKey: string;
}

/** Requests of every kind for one route: near-valid, hostile, malformed, unauthenticated. */
export function requestsFor(route: FuzzedRoute, context: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const input = inputsFor(route, context);
  const method = fc.oneof(
    { arbitrary: fc.constant(route.method.toUpperCase()), weight: 30 },
    { arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'), weight: 1 },
  );
  return fc
    .record({
      method,
      path: pathFor(route, context.known),
      input,
      authorization: authorizationFor(context.apiKey),
      idempotencyKey,
      extraQuery: fc.oneof({ arbitrary: fc.constant(''), weight: 12 }, { arbitrary: oddQuery, weight: 1 }),
      placement: fc.constantFrom('query', 'query', 'query', 'body', 'body', 'split', 'both-same', 'both-conflicting'),
      conflicting: hostileString,
      encoding: bodyEncoding,
    })
    .map(({ method, path, input, authorization, idempotencyKey, extraQuery, placement, conflicting, encoding }) => {
      const headers: Record<string, string> = authorization === undefined ? {} : { Authorization: authorization };
      if (idempotencyKey !== undefined) headers['Idempotency-Key'] = idempotencyKey;
      // A GET operation takes its parameters from the query string, a JSON body, or both.
      const takesQuery = route.method === 'get';
      const inQuery: Record<string, unknown> = {};
      let inBody: unknown = input;
      if (takesQuery && isRecord(input)) {
        const entries = Object.entries(input);
        const half = Math.ceil(entries.length / 2);
        if (placement === 'query' || placement === 'both-same' || placement === 'both-conflicting')
          Object.assign(inQuery, input);
        if (placement === 'split') Object.assign(inQuery, Object.fromEntries(entries.slice(0, half)));
        inBody =
          placement === 'query'
            ? undefined
            : placement === 'split'
              ? Object.fromEntries(entries.slice(half))
              : placement === 'both-conflicting' && entries[0]
                ? { ...input, [entries[0][0]]: conflicting }
                : input;
      }
      // Like a client, send what would make the URL too long for a request line in the body instead.
      const { query: fitting, rest } = fitQuery(inQuery, MAX_QUERY_LENGTH - extraQuery.length);
      if (Object.keys(rest).length > 0) inBody = isRecord(inBody) ? { ...inBody, ...rest } : rest;
      const query = [fitting, extraQuery].filter((part) => part !== '').join('&');
      const target = query === '' ? path : `${path}?${query}`;
      const body = inBody === undefined ? undefined : encoding(inBody);
      return printable({
        method,
        path: target,
        headers: { ...headers, ...(body?.headers ?? {}) },
        ...(body?.body === undefined ? {} : { body: body.body }),
        ...(body?.chunked ? { chunked: true } : {}),
      });
    });
}

/** The body or parameters: near-valid mostly, often with hostile fields, sometimes not an object at all. */
function inputsFor(route: FuzzedRoute, context: FuzzContext): fc.Arbitrary<unknown> {
  const schema = route.input ?? { type: 'object', properties: {} };
  const valid = objectOf(schema, context.components, context.known);
  const fields = Object.keys(
    typeof schema.properties === 'object' && schema.properties !== null ? schema.properties : {},
  );
  const huge = fc
    .tuple(
      valid,
      fc.constantFrom(...(fields.length > 0 ? fields : ['padding'])),
      fc.integer({ min: 60_000, max: 75_000 }),
    )
    .map(([object, field, size]) => ({ ...object, [field]: 'x'.repeat(size) }));
  return fc.oneof(
    { arbitrary: valid, weight: 5 },
    { arbitrary: mutated(valid, fields), weight: 6 },
    { arbitrary: huge, weight: 1 },
    { arbitrary: fc.oneof(wrongType, deeplyNested, hostileString), weight: 1 },
    { arbitrary: fc.constant(undefined), weight: 1 },
  );
}

/** Path parameters: real identifiers, unknown ones, %-escapes good and bad, very long, unicode. */
function pathFor(route: FuzzedRoute, known: KnownValues): fc.Arbitrary<string> {
  const names = [...route.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1] ?? '');
  if (names.length === 0) return fc.constant(route.path);
  const segment = fc.oneof(
    {
      arbitrary: fc.constantFrom(
        ...known.timelineIds,
        ...known.anchorIds,
        ...known.webhookEndpointIds,
        ...known.foreignIds,
        'primary',
      ),
      weight: 4,
    },
    {
      arbitrary: hostileString
        .map(encodeUriSegment)
        .filter((segment) => segment.length > 0 && segment.length <= MAX_QUERY_LENGTH),
      weight: 4,
    },
    {
      arbitrary: fc.constantFrom(
        '%ZZ',
        '%',
        '%2',
        '%00',
        'a%00b',
        '%2F',
        '%2e%2e',
        '..',
        '.',
        '%C0%AF',
        '%ED%A0%80',
        '%FF%FE',
        '%E2%82',
        '%F0%9F%98%80',
        '%25',
        '%2525',
        '+',
        'a;b=c',
        '%3Fx%3D1',
        '%23frag',
      ),
      weight: 2,
    },
    { arbitrary: fc.integer({ min: 190, max: 6_000 }).map((count) => 't'.repeat(count)), weight: 1 },
  );
  return fc.array(segment, { minLength: names.length, maxLength: names.length }).map((values) => {
    let path = route.path;
    names.forEach((name, index) => {
      path = path.replace(`:${name}`, values[index] ?? '');
    });
    return path;
  });
}

/** encodeURIComponent, except that lone surrogates (which it refuses) go out as raw bad UTF-8. */
function encodeUriSegment(text: string): string {
  return [...text]
    .map((char) => (/[\uD800-\uDFFF]/.test(char) && char.length === 1 ? '%ED%A0%80' : encodeURIComponent(char)))
    .join('');
}

/** A working key mostly; otherwise none, or one that is malformed, unknown or oddly spelt. */
/**
 * `Idempotency-Key` on a third of the requests: fresh keys (the first answer kept), a few shared
 * ones (replays, and the same key with another request), and keys that are not valid.
 */
const idempotencyKey: fc.Arbitrary<string | undefined> = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 6 },
  { arbitrary: fc.uuid(), weight: 2 },
  { arbitrary: fc.constantFrom('fuzz-shared-1', 'fuzz-shared-2'), weight: 1 },
  { arbitrary: fc.constantFrom('', ' ', 'x'.repeat(256), 'caf\u00e9', 'a\tb'), weight: 1 },
);

function authorizationFor(apiKey: string): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { arbitrary: fc.constant(`Bearer ${apiKey}`), weight: 16 },
    { arbitrary: fc.constantFrom(`bearer ${apiKey}`, `Bearer   ${apiKey}  `), weight: 1 },
    { arbitrary: fc.constant(undefined), weight: 2 },
    {
      arbitrary: fc.oneof(
        fc.constantFrom(
          '',
          'Bearer',
          'Bearer ',
          'Basic dXNlcjpwYXNz',
          `Bearer ${apiKey}x`,
          `Bearer ${apiKey.slice(0, -1)}`,
          `Bearer ${apiKey} ${apiKey}`,
          `Token ${apiKey}`,
          `Bearer tns_${'a'.repeat(4_000)}`,
          'Bearer tns_',
          'Bearer null',
          'Bearer %00',
        ),
        fc.string({ unit: 'binary-ascii', maxLength: 60 }).map((text) => `Bearer ${text.replace(/[^\x20-\x7e]/g, '')}`),
        fc.string({ unit: 'binary-ascii', maxLength: 60 }).map((text) => text.replace(/[^\x20-\x7e]/g, '')),
      ),
      weight: 3,
    },
  );
}

/** Query strings: repeated keys, bare keys, bad %-escapes, bracket syntax, special names. */
const oddQuery: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '&',
    '&&',
    '=',
    '==',
    'a',
    '%',
    '%ZZ',
    '%00=%00',
    'limit=%ED%A0%80',
    '%FF=1',
    '+=+',
    'a[b]=c',
    'a[]=1&a[]=2',
    '__proto__=1',
    'constructor=x',
    'limit=1&limit=2',
    'timeline_id=primary&timeline_id=primary',
    'location=a&location=b',
    'cursor=&cursor=',
  ),
  fc
    .tuple(
      fc.constantFrom('limit', 'cursor', 'location', 'timeline_id', 'time_range', 'x'),
      fc.array(hostileString, { minLength: 1, maxLength: 3 }),
    )
    .map(([key, values]) => values.map((value) => `${key}=${encodeUriSegment(value)}`).join('&'))
    .filter((query) => query.length <= MAX_QUERY_LENGTH / 2),
);

/**
 * A parameters object as a query string (lists become repeated keys, objects their JSON text), up
 * to `room` characters.
 */
function fitQuery(
  parameters: Readonly<Record<string, unknown>>,
  room: number,
): { query: string; rest: Record<string, unknown> } {
  const pairs: string[] = [];
  const rest: Record<string, unknown> = {};
  let length = 0;
  for (const [key, value] of Object.entries(parameters)) {
    const encoded = (Array.isArray(value) ? value : [value])
      .map((item) => `${encodeUriSegment(key)}=${encodeUriSegment(asText(item))}`)
      .join('&');
    if (length + encoded.length + 1 > room) {
      Object.defineProperty(rest, key, { value, enumerable: true, writable: true, configurable: true });
    } else {
      pairs.push(encoded);
      length += encoded.length + 1;
    }
  }
  return { query: pairs.join('&'), rest };
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

interface EncodedBody {
  readonly body?: string | Buffer;
  readonly headers: Readonly<Record<string, string>>;
  readonly chunked?: boolean;
}

type BodyEncoding = (value: unknown) => EncodedBody;

const JSON_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'Application/JSON',
  'application/problem+json',
  'application/vnd.api+json',
];
const OTHER_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/xml',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset=nonsense',
  'json',
  '*/*',
  'application/',
  ';;;',
  'application/json, text/plain',
];

const MALFORMED_JSON = [
  '{',
  '{"a":',
  '{"a":1,}',
  "{'a':1}",
  'NaN',
  'undefined',
  '{"a":1}{"b":2}',
  '\uFEFF{}',
  '[',
  ']',
  '"',
  '{"a":"\\u00"}',
  '{"a":"\\x41"}',
  '01',
  '--1',
  '{"a" 1}',
  '\u0000',
  ' ',
  'nul',
  '{"a":1e999999}',
  '{"__proto__":{"x":1},"__proto__":2}',
];

/**
 * Well-formed JSON nested as deep as the body limit allows: deeper than any recursive walk of the
 * parsed value (JSON.stringify included) survives. Written as text, since the test's own
 * JSON.stringify would overflow on it.
 */
const deepJsonText: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 5_000, max: 32_000 }), fc.boolean())
  .map(([depth, asObject]) =>
    asObject ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}${']'.repeat(depth)}`,
  );

/** How the value reaches the server: mostly as JSON, sometimes malformed, mislabelled, compressed or chunked. */
const bodyEncoding: fc.Arbitrary<BodyEncoding> = fc.oneof(
  {
    arbitrary: fc
      .constantFrom(...JSON_TYPES)
      .map((type): BodyEncoding => (value) => ({ body: JSON.stringify(value), headers: { 'Content-Type': type } })),
    weight: 14,
  },
  { arbitrary: fc.constant<BodyEncoding>((value) => ({ body: JSON.stringify(value), headers: {} })), weight: 1 },
  {
    arbitrary: fc
      .constantFrom(...OTHER_TYPES)
      .map((type): BodyEncoding => (value) => ({ body: JSON.stringify(value), headers: { 'Content-Type': type } })),
    weight: 2,
  },
  {
    arbitrary: fc
      .oneof(
        fc.constantFrom(...MALFORMED_JSON),
        fc.string({ maxLength: 40 }),
        fc.integer({ min: 1, max: 60 }).map((depth) => '{"a":'.repeat(depth)),
        deepJsonText,
      )
      .map((text): BodyEncoding => () => ({ body: text, headers: { 'Content-Type': 'application/json' } })),
    weight: 2,
  },
  // JSON truncated somewhere, or with bytes that are not UTF-8.
  {
    arbitrary: fc.nat().map((cut): BodyEncoding => (value) => ({
      body: truncated(JSON.stringify(value) ?? '', cut),
      headers: { 'Content-Type': 'application/json' },
    })),
    weight: 1,
  },
  {
    arbitrary: fc.uint8Array({ minLength: 1, maxLength: 8 }).map((bytes): BodyEncoding => (value) => ({
      body: withBytes(JSON.stringify(value) ?? 'null', bytes),
      headers: { 'Content-Type': 'application/json' },
    })),
    weight: 1,
  },
  // Compressed: a real gzip body (inflated past the limit when huge), a false claim, an unknown coding.
  {
    arbitrary: fc.constant<BodyEncoding>((value) => ({
      body: gzipSync(JSON.stringify(value) ?? 'null'),
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
    })),
    weight: 1,
  },
  {
    arbitrary: fc
      .constantFrom('gzip', 'deflate', 'br', 'compress', 'x-unknown', 'identity')
      .map((coding): BodyEncoding => (value) => ({
        body: JSON.stringify(value),
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': coding },
      })),
    weight: 1,
  },
  {
    arbitrary: fc.constant<BodyEncoding>(() => ({
      body: gzipSync('{"padding":"' + 'x'.repeat(300_000) + '"}'),
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
    })),
    weight: 1,
  },
  {
    arbitrary: fc
      .constantFrom<Record<string, string>>(
        {},
        { 'Content-Type': 'application/json' },
        { 'Content-Type': 'text/plain' },
      )
      .map((headers): BodyEncoding => (value) => ({ body: JSON.stringify(value), headers, chunked: true })),
    weight: 1,
  },
  {
    arbitrary: fc.constant<BodyEncoding>(() => ({ body: '', headers: { 'Content-Type': 'application/json' } })),
    weight: 1,
  },
);

function truncated(text: string, cut: number): string {
  return text.length <= 1 ? '' : text.slice(0, cut % text.length);
}

function withBytes(text: string, bytes: Uint8Array): Buffer {
  const encoded = Buffer.from(text);
  const at = Math.floor(encoded.length / 2);
  return Buffer.concat([encoded.subarray(0, at), bytes, encoded.subarray(at)]);
}

/** fast-check prints counterexamples with this: long runs of one character are abbreviated. */
function printable(fuzz: FuzzRequest): FuzzRequest {
  const abbreviate = (text: string): string =>
    text.replace(/(.)\1{39,}/gsu, (run, unit: string) => `${unit.repeat(3)}…(${unit} × ${[...run].length})`);
  const body =
    fuzz.body === undefined
      ? {}
      : {
          body:
            typeof fuzz.body === 'string'
              ? abbreviate(fuzz.body)
              : `<${fuzz.body.length} bytes: ${fuzz.body.toString('base64').slice(0, 200)}>`,
        };
  const shown = { ...fuzz, path: abbreviate(fuzz.path), ...body };
  return Object.assign(fuzz, { [fc.toStringMethod]: () => JSON.stringify(shown) });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
