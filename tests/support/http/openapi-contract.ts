import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type request from 'supertest';

type Json = { [key: string]: unknown };

export interface OpenApiOperation {
  readonly operationId: string;
  readonly summary?: string;
  readonly description?: string;
  readonly tags?: string[];
  readonly security?: unknown[];
  readonly parameters?: ReadonlyArray<{
    name: string;
    in: string;
    required?: boolean;
    schema: Json;
    example?: unknown;
  }>;
  readonly requestBody?: { content: Record<string, { schema: Json; example?: unknown }> };
  readonly responses: Record<string, OpenApiResponse>;
}

export interface OpenApiHeader {
  readonly required?: boolean;
  readonly schema: Json;
}

export interface OpenApiResponse {
  readonly headers?: Record<string, OpenApiHeader | { $ref: string }>;
  readonly content?: Record<string, { schema: Json; example?: unknown; examples?: Record<string, { value: unknown }> }>;
}

export interface OpenApiDocument {
  readonly openapi: string;
  readonly info: Json;
  readonly paths: Record<string, Record<string, OpenApiOperation>>;
  readonly components: {
    readonly schemas: Record<string, Json>;
    readonly headers?: Record<string, OpenApiHeader>;
  } & Record<string, Record<string, unknown>>;
}

export interface LocatedOperation {
  readonly method: string;
  readonly path: string;
  readonly operation: OpenApiOperation;
}

const DOCUMENT_ID = 'https://time-navigation.invalid/openapi.json';
/** Headers the service sets itself, which a response must declare when it carries them. */
const CHECKED_HEADERS = [
  'x-request-id',
  'retry-after',
  'idempotent-replayed',
  'www-authenticate',
  'location',
  'ratelimit',
  'ratelimit-policy',
  'cache-control',
  'x-content-type-options',
  'x-accel-buffering',
];

/**
 * Checks values and real responses against the schemas of an OpenAPI 3.1 document (JSON Schema
 * 2020-12), and remembers which operations a real success and a real error were checked for.
 */
export class OpenApiContract {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: false });
  private readonly compiled = new Map<string, ValidateFunction>();
  readonly checked = new Map<string, Set<'success' | 'error'>>();

  constructor(readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: DOCUMENT_ID, components: document.components });
  }

  operations(): LocatedOperation[] {
    return Object.entries(this.document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ method, path, operation })),
    );
  }

  operation(operationId: string): LocatedOperation {
    const found = this.operations().find(({ operation }) => operation.operationId === operationId);
    if (!found) throw new Error(`the document has no operation ${operationId}`);
    return found;
  }

  /** Problems of `value` against `schema` (a schema of this document); empty when it conforms. */
  violations(schema: Json, value: unknown): string[] {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(rebase(schema));
      this.compiled.set(key, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (error) => `${error.instancePath || '(root)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
    );
  }

  /** A header of a response, its `$ref` to `components.headers` followed; matched ignoring case. */
  header(response: OpenApiResponse, name: string): OpenApiHeader | undefined {
    const found = Object.entries(response.headers ?? {}).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
    if (!found || !('$ref' in found)) return found;
    return this.document.components.headers?.[found.$ref.replace('#/components/headers/', '')];
  }

  /** Fails unless the document describes this status, media type, body and headers for the operation. */
  expectConforms(operationId: string, response: request.Response): void {
    const { operation } = this.operation(operationId);
    const where = `${operationId} answered ${response.status} ${JSON.stringify(response.body)}`;
    const documented = operation.responses[String(response.status)];
    if (!documented) throw new Error(`${where}: the document lists no ${response.status} for it`);
    const mediaType = String(response.headers['content-type'] ?? '').split(';')[0] ?? '';
    // A HEAD's answers and a 204 are documented without a body, as they are sent; every other answer has one.
    const bodiless = this.operation(operationId).method === 'head' || response.status === 204;
    const content = documented.content?.[mediaType];
    if (bodiless && documented.content) throw new Error(`${where}: an answer without a body is documented with one`);
    if (bodiless && response.text) throw new Error(`${where}: a ${response.status} answer carries a body`);
    if (!bodiless && !content)
      throw new Error(`${where}: the document lists no ${mediaType} body for ${response.status}`);
    const problems = [
      ...(content ? this.violations(content.schema, response.body) : []),
      ...this.headerViolations(documented, response.headers),
    ];
    if (problems.length > 0) throw new Error(`${where}: does not match the document:\n${problems.join('\n')}`);
    const kind = response.status < 400 ? 'success' : 'error';
    this.checked.set(operationId, new Set([...(this.checked.get(operationId) ?? []), kind]));
  }

  /** Required headers that are missing, headers sent that their schema refuses, and service headers sent undeclared. */
  private headerViolations(documented: OpenApiResponse, headers: Record<string, string>): string[] {
    const undeclared = CHECKED_HEADERS.filter(
      (name) => headers[name] !== undefined && this.header(documented, name) === undefined,
    );
    return [
      ...undeclared.map((name) => `header ${name} is sent but not declared`),
      ...Object.keys(documented.headers ?? {}).flatMap((name) => {
        const header = this.header(documented, name);
        const value = headers[name.toLowerCase()];
        if (value === undefined) return header?.required ? [`header ${name} is missing`] : [];
        // A header is text: an integer header is checked as the number it spells.
        const typed = header?.schema.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
        return header ? this.violations(header.schema, typed).map((problem) => `header ${name}: ${problem}`) : [];
      }),
    ];
  }

  /** The kinds of answer an operation's checks must cover: an error too when it documents one. */
  kindsOf(operationId: string): Array<'success' | 'error'> {
    const statuses = Object.keys(this.operation(operationId).operation.responses).map(Number);
    return statuses.some((status) => status >= 400) ? ['success', 'error'] : ['success'];
  }
}

/** `#/components/...` refers to the document, which the validator knows by its id. */
function rebase(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/', `"$ref":"${DOCUMENT_ID}#/`));
}
