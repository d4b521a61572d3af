import type { ClassConstructor } from 'class-transformer';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { DURATION_FORMS } from '../../../core/domain/duration';
import { MAX_WINDOW_MINUTES } from '../../../core/domain/timeline';
import { DATE_TIME_HINT } from '../validation/decorators';
import { DATE_TIME_PATTERN, TIME_RANGE_PATTERN, WINDOW_PATTERN } from '../validation/patterns';
import { EXCLUDES, splitForms } from './forms';

export type JsonObject = { [key: string]: unknown };

export const SCHEMA_PREFIX = '#/components/schemas/';

type Converters = NonNullable<Parameters<typeof validationMetadatasToSchemas>[0]>['additionalConverters'];

/** Our own class-validator decorators (validation/decorators.ts), as JSON Schema. */
const customConverters: Converters = {
  isDateTime: {
    type: 'string' as const,
    format: 'date-time',
    pattern: DATE_TIME_PATTERN,
    description: `RFC 3339: ${DATE_TIME_HINT}`,
  },
  isWindow: {
    type: 'string' as const,
    pattern: WINDOW_PATTERN,
    description: `'<n> minutes', n from 1 to ${MAX_WINDOW_MINUTES}`,
  },
  // The same form as the core's Duration.parse; the conformance test sends one through both.
  isDuration: { type: 'string' as const, pattern: '^[1-9][0-9]{0,6}[mhd]$', description: DURATION_FORMS },
  isTimeRange: {
    type: 'string' as const,
    pattern: TIME_RANGE_PATTERN,
    description: '<start>/<end>: two RFC 3339 date-times, the start not after the end (both included)',
  },
  // Its scheme and host have rules of the service's settings and of DNS, which its description says.
  isWebhookUrl: {
    type: 'string' as const,
    format: 'uri',
    description:
      'An absolute `https` URL (`http` too where the service sets WEBHOOK_ALLOW_PRIVATE_URLS), without a user ' +
      'name, password or #fragment, whose host is and resolves to public addresses only.',
  },
  // trim() removes the same white space \s matches, so the pattern says what IsNotBlank checks.
  isNotBlank: { type: 'string' as const, pattern: '\\S' },
  // A marker splitForms turns into the object's two forms.
  excludesProperties: (meta) => ({ [EXCLUDES]: meta.constraints?.[0] ?? [] }),
  // A bound says nothing of the type: the library's own converters add `type: number`, which
  // overwrites an IsInt's `integer` (a `limit` of 1.5 is refused).
  min: (meta) => ({ minimum: meta.constraints?.[0] as number }),
  max: (meta) => ({ maximum: meta.constraints?.[0] as number }),
};

/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses) of `roots` and every class they nest, read from the
 * class-validator and class-transformer metadata the service validates with. Objects are closed
 * (`additionalProperties: false`) unless a class says otherwise: requests with unknown fields are
 * refused, and responses carry only documented fields.
 */
export function schemasOf(roots: readonly ClassConstructor<object>[]): Record<string, JsonObject> {
  const generated = validationMetadatasToSchemas({
    refPointerPrefix: SCHEMA_PREFIX,
    classTransformerMetadataStorage: defaultMetadataStorage,
    additionalConverters: customConverters,
  });
  const all: Record<string, JsonObject> = Object.fromEntries(
    Object.entries(generated).map(([name, schema]) => [name, Object.fromEntries(Object.entries(schema))]),
  );
  const wanted = new Set<string>();
  const visit = (name: string): void => {
    if (wanted.has(name)) return;
    const schema = all[name];
    if (!schema) throw new Error(`no class-validator metadata for ${name}: give it decorators`);
    wanted.add(name);
    refsIn(schema).forEach(visit);
  };
  roots.forEach((root) => visit(root.name));
  return Object.fromEntries([...wanted].sort().map((name) => [name, closeObject(splitForms(all[name] ?? {}))]));
}

export function refTo(dto: ClassConstructor<object>): JsonObject {
  return { $ref: `${SCHEMA_PREFIX}${dto.name}` };
}

/** A `oneOf` closes each of its forms instead: closing the whole would refuse every field. */
function closeObject(schema: JsonObject): JsonObject {
  return 'additionalProperties' in schema || 'oneOf' in schema ? schema : { ...schema, additionalProperties: false };
}

/** Names of the schemas a schema refers to, at any depth. */
export function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === '$ref' && typeof inner === 'string' && inner.startsWith(SCHEMA_PREFIX)
      ? [inner.slice(SCHEMA_PREFIX.length)]
      : refsIn(inner),
  );
}
