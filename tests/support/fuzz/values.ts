import fc from 'fast-check';

/** A JSON Schema of the served OpenAPI document (components.schemas), read loosely. */
export type Schema = { readonly [key: string]: unknown };

/** Identifiers and cursors that exist, so near-valid input reaches the use cases and not only validation. */
export interface KnownValues {
  readonly timelineIds: readonly string[];
  readonly anchorIds: readonly string[];
  readonly itemIds: readonly string[];
  readonly eventIds: readonly string[];
  readonly eventNames: readonly string[];
  readonly webhookEndpointIds: readonly string[];
  readonly cursors: readonly string[];
  /** Another account's identifiers: they must answer exactly like unknown ones, never fail. */
  readonly foreignIds: readonly string[];
}

const FIRST_MOMENT = Date.parse('0001-01-01T00:00:00Z');
const LAST_MOMENT = Date.parse('9999-12-31T23:59:59Z');

/** The spec's date-time form, anywhere in years 0001-9999, mostly near our era so timelines stay open. */
export const dateTime: fc.Arbitrary<string> = fc
  .oneof(
    { arbitrary: fc.integer({ min: FIRST_MOMENT, max: LAST_MOMENT }), weight: 1 },
    {
      arbitrary: fc.integer({ min: Date.parse('1900-01-01T00:00:00Z'), max: Date.parse('2100-01-01T00:00:00Z') }),
      weight: 3,
    },
    { arbitrary: fc.constantFrom(FIRST_MOMENT, LAST_MOMENT), weight: 1 },
  )
  .map((ms) => new Date(ms - (ms % 1000)).toISOString().replace(/\.\d{3}Z$/, 'Z'));

/** Date-times the service must refuse (or accept) without failing: off-by-one, other zones, other forms. */
const nearDateTime = fc.constantFrom(
  '2024-02-30T00:00:00Z',
  '2023-02-29T12:00:00Z',
  '2024-05-01T24:00:00Z',
  '2024-05-01T23:59:60Z',
  '2024-05-01T12:00:00+02:00',
  '2024-05-01T12:00:00.123456789Z',
  '2024-05-01t12:00:00z',
  '2024-05-01 12:00:00Z',
  '2024-05-01',
  '0000-12-31T23:59:59Z',
  '10000-01-01T00:00:00Z',
  '+002024-05-01T12:00:00Z',
  '-000001-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '1969-07-20T20:17:40Z/',
  '1e21',
);

const timeRange: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.tuple(dateTime, dateTime).map(([a, b]) => (a <= b ? `${a}/${b}` : `${b}/${a}`)), weight: 4 },
  { arbitrary: fc.tuple(dateTime, dateTime).map(([a, b]) => `${a}/${b}`), weight: 1 },
  { arbitrary: fc.tuple(nearDateTime, dateTime).map(([a, b]) => `${a}/${b}`), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      '/',
      '//',
      'a/b',
      '0001-01-01T00:00:00Z/9999-12-31T23:59:59Z',
      '2000-01-01T00:00:00Z/2000-01-01T00:00:00Z/x',
    ),
    weight: 1,
  },
);

const SPECIAL_STRINGS = [
  '',
  ' ',
  '\t\n',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDFFFy',
  '\uDFFF\uD800',
  '\uDBFF\uDFFF',
  '😀',
  '👩🏽‍🚀👨‍👩‍👧‍👦',
  '🏳️‍🌈'.repeat(30),
  'שלום עולם',
  'مرحبا بالعالم',
  '\u202Eevil\u202C',
  '\u200F\u200E\u200B',
  'e\u0301\u0302\u0303\u0304\u0305\u0306',
  'Z̸̡̢̛̗̘̙̜̝̞̟̠̆̇̈̉̊',
  '\uFEFF',
  '\u2028\u2029',
  '\r\n',
  '\u001B[31m',
  '\uFFFE\uFFFF',
  '<script>alert(1)</script>',
  '\'; DROP TABLE "Timeline"; --',
  "\\' OR 1=1 --",
  '%s%n%x',
  '${7*7}',
  '{{7*7}}',
  '__proto__',
  'constructor',
  'prototype',
  'primary',
  'PRIMARY',
  '..',
  '../../etc/passwd',
  'NaN',
  'null',
  'true',
  '1e309',
  '-0',
  '0x10',
  ' 7 ',
  '١٢٣',
  '7.0',
  '00000000000000000000000000001',
  'tml_',
  'tml_00000000000000000000000000000000',
  'anc_ffffffffffffffffffffffffffffffff',
  'itm_' + 'a'.repeat(96),
  'evt_\u0000',
];

/** Strings built to trip encoders, limits and databases. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...SPECIAL_STRINGS), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }), weight: 2 },
  // Lone surrogates travel as JSON escapes (`"\ud800"`): JSON.stringify writes them that way.
  {
    arbitrary: fc
      .array(fc.integer({ min: 0xd800, max: 0xdfff }), { minLength: 1, maxLength: 4 })
      .map((units) => String.fromCharCode(...units)),
    weight: 1,
  },
  // Just under, at and just over the documented lengths (100, 200, 254, 256, 1000).
  {
    arbitrary: fc
      .tuple(
        fc.constantFrom('a', 'é', '時', '😀', 'e\u0301'),
        fc.constantFrom(99, 100, 101, 199, 200, 201, 254, 255, 256, 257, 999, 1000, 1001),
      )
      .map(([unit, count]) => unit.repeat(count)),
    weight: 2,
  },
  // Huge: past every field limit, some past the 64 KiB body limit.
  {
    arbitrary: fc
      .tuple(fc.constantFrom('a', 'é', '😀', '\u0301', '\u0000', '"', '\\'), fc.integer({ min: 1_002, max: 70_000 }))
      .map(([unit, count]) => unit.repeat(count)),
    weight: 1,
  },
);

/** Nested arrays or objects, deeper than any request needs. */
export const deeplyNested: fc.Arbitrary<unknown> = fc
  .tuple(fc.integer({ min: 20, max: 3_000 }), fc.boolean())
  .map(([depth, asObject]) => {
    let value: unknown = asObject ? {} : [];
    for (let level = 0; level < depth; level++) value = asObject ? { a: value } : [value];
    return value;
  });

/** Values of the wrong type wherever a string or number belongs. */
export const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    -0,
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER + 2,
    5e-324,
    [],
    [null],
    ['a', 'b'],
    {},
    { a: 'b' },
    { length: 1 },
    [{}],
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Anything that may stand where a field's value belongs. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: hostileString, weight: 4 },
  { arbitrary: wrongType, weight: 4 },
  { arbitrary: deeplyNested, weight: 1 },
);

/** Field names the DTOs do not know, including ones that object machinery treats specially. */
export const unknownField: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'valueOf',
    '',
    ' ',
    'id',
    'account_id',
    'Timeline_Id',
    'timeline_id ',
    'a.b',
    'a[0]',
    '\u0000',
    '😀',
  ),
  fc.string({ maxLength: 20 }),
);

/**
 * Values a schema accepts or nearly accepts: the right types, real identifiers, formats and lengths
 * from the schema (`field` names the property, for identifier and time-range hints).
 */
export function validish(
  schema: Schema,
  field: string,
  components: Readonly<Record<string, Schema>>,
  known: KnownValues,
): fc.Arbitrary<unknown> {
  const ref = typeof schema.$ref === 'string' ? schema.$ref.split('/').pop() : undefined;
  if (ref !== undefined) return validish(components[ref] ?? {}, field, components, known);
  // An object of several forms: any one of them.
  if (Array.isArray(schema.oneOf))
    return fc.oneof(...schema.oneOf.map((form) => validish(isSchema(form) ? form : {}, field, components, known)));
  switch (schema.type) {
    case 'object':
      return objectOf(schema, components, known);
    case 'array': {
      const items = isSchema(schema.items) ? schema.items : {};
      const maxLength = Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 5, 5);
      return fc.array(validish(items, field, components, known), { maxLength });
    }
    case 'integer': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : 0;
      const max = typeof schema.maximum === 'number' ? schema.maximum : 1_000;
      return fc.integer({ min, max });
    }
    case 'string':
      return stringFor(schema, field, known);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** An object of the schema's properties: the required ones always, the optional ones sometimes. */
export function objectOf(
  schema: Schema,
  components: Readonly<Record<string, Schema>>,
  known: KnownValues,
): fc.Arbitrary<Record<string, unknown>> {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === 'string')
    : [];
  const model = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => [
      name,
      validish(isSchema(property) ? property : {}, name, components, known),
    ]),
  );
  return fc.record(model, { requiredKeys: required });
}

/**
 * URLs near an endpoint's: valid ones, those its rules refuse (http, credentials, a fragment, a
 * private address, a name that resolves to none), and text that is no URL.
 */
const webhookUrl: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.webUrl({ validSchemes: ['https'], withQueryParameters: true }), weight: 4 },
  { arbitrary: fc.webUrl({ validSchemes: ['http', 'ftp', 'javascript'], withFragments: true }), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      'https://127.0.0.1/',
      'https://[::1]/',
      'https://169.254.169.254/latest/meta-data',
      'https://nowhere.invalid/',
      'https://user:pass@example.com/',
      'https://example.com/#top',
      'https://example.com:99999/',
      'https://',
      '//example.com/hooks',
      'data:text/plain,hi',
    ),
    weight: 2,
  },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 1 },
);

/** Short pieces of Unicode that break naive encoders: lone surrogates, emoji, RTL marks, combining marks, BOM, NUL. */
const unicodePiece = fc.constantFrom(
  '\uD800',
  '\uDFFF',
  '\uDBFF',
  '😀',
  '👩🏽‍🚀',
  '\u202E',
  '\u200F',
  'שָׁלוֹם',
  'مرحبا',
  '\u0301\u0302',
  '\uFEFF',
  '\u0000',
  '\uFFFF',
  '\u2028',
  '時',
);

/** A near-valid string with a piece of hostile Unicode spliced in somewhere, now and then. */
function laced(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const spliced = fc.tuple(valid, unicodePiece, fc.nat()).map(([text, piece, at]) => {
    const cut = text.length === 0 ? 0 : at % (text.length + 1);
    return `${text.slice(0, cut)}${piece}${text.slice(cut)}`;
  });
  return fc.oneof({ arbitrary: valid, weight: 3 }, { arbitrary: spliced, weight: 1 });
}

function stringFor(schema: Schema, field: string, known: KnownValues): fc.Arbitrary<string> {
  return laced(plainStringFor(schema, field, known));
}

function plainStringFor(schema: Schema, field: string, known: KnownValues): fc.Arbitrary<string> {
  const ids = idsFor(field, known);
  if (ids.length > 0) {
    return fc.oneof(
      { arbitrary: fc.constantFrom(...ids), weight: 6 },
      { arbitrary: fc.constantFrom(...known.foreignIds, 'primary'), weight: 1 },
      { arbitrary: fc.stringMatching(/^(tml|anc|itm|evt)_[0-9a-f]{32}$/), weight: 1 },
    );
  }
  if (field === 'time_range') return timeRange;
  if (field === 'cursor') {
    return fc.oneof(
      fc.constantFrom(...known.cursors, ''),
      fc.string({ maxLength: 40 }).map((text) => Buffer.from(text).toString('base64url')),
      fc.stringMatching(/^[A-Za-z0-9_-]{1,60}$/),
    );
  }
  if (schema.format === 'uri') return webhookUrl;
  if (schema.format === 'date-time')
    return fc.oneof({ arbitrary: dateTime, weight: 5 }, { arbitrary: nearDateTime, weight: 1 });
  if (schema.format === 'email') {
    return fc.oneof(
      fc.emailAddress(),
      fc.integer({ min: 0, max: 1_000_000 }).map((n) => `fuzz-${n}@example.com`),
      fc.constantFrom('not-an-email', 'a@b', '@example.com', 'ADA@EXAMPLE.COM', 'ada@example.com'),
    );
  }
  if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern));
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : 100;
  return fc.oneof(
    { arbitrary: fc.string({ minLength, maxLength: Math.min(maxLength, 30) }), weight: 4 },
    { arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength: Math.min(maxLength, 30) }), weight: 2 },
    { arbitrary: fc.constantFrom(...known.eventNames, 'Sea of Tranquility', 'Home', 'Moon rock'), weight: 2 },
    {
      arbitrary: fc.constantFrom(
        'x'.repeat(maxLength),
        '😀'.repeat(maxLength),
        'e\u0301'.repeat(Math.floor(maxLength / 2)),
      ),
      weight: 1,
    },
  );
}

function idsFor(field: string, known: KnownValues): readonly string[] {
  switch (field) {
    case 'timeline_id':
      return [...known.timelineIds, 'primary'];
    case 'destination':
      return [...known.timelineIds, ...known.anchorIds, 'primary'];
    case 'anchor_id':
      return known.anchorIds;
    case 'item_id':
    case 'items_transported':
      return known.itemIds;
    case 'event_id':
      return known.eventIds;
    case 'significant_event':
      return [...known.eventIds, ...known.eventNames];
    default:
      return [];
  }
}

function isSchema(value: unknown): value is Record<string, Schema> & Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One change to an otherwise near-valid input object. */
type Mutation = { readonly set: string; readonly value: unknown } | { readonly remove: string };

/** Near-valid objects with some fields replaced by hostile values, removed, or joined by unknown ones. */
export function mutated(
  base: fc.Arbitrary<Record<string, unknown>>,
  fields: readonly string[],
): fc.Arbitrary<Record<string, unknown>> {
  const name =
    fields.length > 0
      ? fc.oneof({ arbitrary: fc.constantFrom(...fields), weight: 3 }, { arbitrary: unknownField, weight: 1 })
      : unknownField;
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    { arbitrary: fc.record({ set: name, value: hostileValue }), weight: 4 },
    { arbitrary: fc.record({ remove: name }), weight: 1 },
  );
  return fc.tuple(base, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([object, mutations]) => {
    const result: Record<string, unknown> = { ...object };
    for (const change of mutations) {
      if ('remove' in change) delete result[change.remove];
      // defineProperty, so that `__proto__` becomes an own key as JSON.parse would make it.
      else
        Object.defineProperty(result, change.set, {
          value: change.value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
    return result;
  });
}
