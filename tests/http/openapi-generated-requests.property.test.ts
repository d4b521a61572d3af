// Requests generated from the OpenAPI document's own schemas (fast-check), sent to the service:
// what the document accepts is never refused as invalid (but for the rules a schema cannot say,
// named in `listedException`), what it refuses is refused with a documented status and code, and
// every answer is valid against the document.
import fc from 'fast-check';
import request from 'supertest';
import { parseDateTime } from '../../src/core/domain/date-time';
import { DATE_TIME_PATTERN, TIME_RANGE_PATTERN } from '../../src/interfaces/http/validation/patterns';
import { type LocatedOperation, OpenApiContract, type OpenApiDocument } from '../support/http/openapi-contract';
import { objectOf, resolved, type Schema, valueOf } from '../support/http/schema-arbitrary';
import { startTestApp, type TestApp } from '../support/http/test-app';

// Some 700 requests, sign-ups (scrypt) among them; on the embedded database with two busy cores.
jest.setTimeout(300_000);

const RUNS_PER_OPERATION = 25;
const INVALID_INPUT = new Set(['validation_failed', 'malformed_json', 'malformed_request']);

interface Sent {
  readonly path: string;
  readonly query: Record<string, string>;
  readonly body: Record<string, unknown> | undefined;
}

/**
 * The rules no schema says, each written in its operation's description and docs/openapi.md: a
 * date-time that names no moment of years 0001-9999 (February 30, or past 9999 once its offset is
 * applied), a time range whose start is after its end, a cursor the service did not write, and a
 * webhook endpoint's `http` URL, which the service takes only with WEBHOOK_ALLOW_PRIVATE_URLS.
 */
function listedException(field: string, value: unknown): boolean {
  if (/(^|\.)cursor$/.test(field)) return true;
  if (typeof value !== 'string') return false;
  if (field === 'url' && value.startsWith('http:')) return true;
  if (new RegExp(TIME_RANGE_PATTERN).test(value)) {
    const [start = '', end = ''] = value.split('/').map((part) => part.trim());
    const [from, to] = [parseDateTime(start), parseDateTime(end)];
    return from === null || to === null || from.getTime() > to.getTime();
  }
  return new RegExp(DATE_TIME_PATTERN).test(value) && parseDateTime(value) === null;
}

/**
 * A generated request nearer to what a client sends, so that the operations' work runs and not only
 * their refusals: no cursor (one the service did not write is refused, by a listed rule), a time
 * range's ends in order, and, if `own`, the account's own timeline where one is named (or is the destination).
 */
function realistic(sent: Sent, own: boolean): Sent {
  const adjust = (fields: Record<string, unknown>) => {
    const { cursor: _cursor, ...rest } = fields;
    const range = rest.time_range;
    if (typeof range === 'string') {
      const [start = '', end = ''] = range.split('/');
      if (Date.parse(start.trim()) > Date.parse(end.trim())) rest.time_range = `${end}/${start}`;
    }
    if (own && typeof rest.timeline_id === 'string') rest.timeline_id = 'primary';
    if (own && typeof rest.destination === 'string') rest.destination = 'primary';
    return rest;
  };
  const path = own ? sent.path.replace(/^\/timeline\/[^/]+$/, '/timeline/primary') : sent.path;
  return {
    path,
    query: adjust(sent.query) as Record<string, string>,
    body: sent.body === undefined ? undefined : adjust(sent.body),
  };
}

/** The value at a problem's field path (`proposed_changes[1].time`) in what was sent. */
function valueAt(sent: Sent, field: string): unknown {
  const steps = field.split(/\.|\[(\d+)\]/).filter((step) => step !== undefined && step !== '');
  let value: unknown = { ...sent.query, ...sent.body };
  for (const step of steps) value = (value as Record<string, unknown> | undefined)?.[step];
  return value;
}

describe('requests generated from GET /openapi.json', () => {
  let t: TestApp;
  let auth: string;
  let contract: OpenApiContract;
  let components: Record<string, Schema>;

  beforeAll(async () => {
    t = await startTestApp();
    auth = (await t.signUp()).auth;
    const document: OpenApiDocument = (await request(t.app).get('/openapi.json')).body;
    contract = new OpenApiContract(document);
    components = (document.components.schemas ?? {}) as Record<string, Schema>;
  });
  afterAll(() => t.close());

  const operations = () =>
    contract
      .operations()
      .filter(({ method, path }) => ['get', 'post'].includes(method) && !/^\/(healthz|readyz)$/.test(path));

  /** A request the operation's schemas accept: its path ids, query parameters and body. */
  function requestsOf({ path, operation }: LocatedOperation): fc.Arbitrary<Sent> {
    const parameters = operation.parameters ?? [];
    const ids = parameters.filter((parameter) => parameter.in === 'path');
    const queried = parameters.filter((parameter) => parameter.in === 'query');
    const idValues = fc.tuple(
      ...ids.map((parameter) =>
        (valueOf(parameter.schema as Schema, components) as fc.Arbitrary<string>).filter((id) => id.isWellFormed()),
      ),
    );
    const query = fc.record(
      Object.fromEntries(
        queried.map((parameter) => [parameter.name, valueOf(parameter.schema as Schema, components).map(String)]),
      ),
      { requiredKeys: queried.filter((parameter) => parameter.required).map((parameter) => parameter.name) },
    );
    const bodySchema = operation.requestBody?.content['application/json']?.schema as Schema | undefined;
    const body = bodySchema ? objectOf(bodySchema, components).map((value) => ({ ...value })) : fc.constant(undefined);
    return fc.record({ ids: idValues, query, body }).map(({ ids: values, query: asked, body: sent }) => {
      let index = 0;
      const filled = path.replace(/\{[^}]+\}/g, () => encodeURIComponent(String(values[index++])));
      return {
        path: filled,
        query: asked as Record<string, string>,
        body: sent as Record<string, unknown> | undefined,
      };
    });
  }

  function send(method: string, sent: Sent, keyed: boolean): Promise<request.Response> {
    const asked = method === 'get' ? request(t.app).get(sent.path).query(sent.query) : request(t.app).post(sent.path);
    const withKey = keyed ? asked.set('Authorization', auth) : asked;
    return sent.body === undefined ? withKey : withKey.send(sent.body);
  }

  it('never refuses a request the document accepts as invalid, and answers only what it documents', async () => {
    const sentTo: string[] = [];
    for (const located of operations()) {
      const id = String(located.operation.operationId);
      const keyed = (located.operation.security ?? []).length > 0;
      await fc.assert(
        fc.asyncProperty(fc.tuple(requestsOf(located), fc.boolean()), async ([generated, own]) => {
          const sent = realistic(generated, own);
          const response = await send(located.method, sent, keyed);
          const where = `${id} ${JSON.stringify(sent)} answered ${response.status} ${response.text}`;
          if (response.status >= 500) throw new Error(where);
          contract.expectConforms(id, response);
          if (response.status === 400 && INVALID_INPUT.has(response.body.code)) {
            const fields: string[] = (response.body.errors ?? []).map((error: { field: string }) => error.field);
            const unlisted = fields.filter((field) => !listedException(field, valueAt(sent, field)));
            if (fields.length === 0 || unlisted.length > 0) throw new Error(`refused as invalid: ${where}`);
          }
        }),
        { numRuns: RUNS_PER_OPERATION },
      );
      sentTo.push(id);
    }
    expect(sentTo).toEqual(expect.arrayContaining(['createTravel', 'scanEvents', 'monitorEvents', 'createAccount']));
  });

  it('refuses, as documented, a body with a field the document does not have, or without a required one', async () => {
    const refused: string[] = [];
    for (const located of operations()) {
      const id = String(located.operation.operationId);
      const schema = located.operation.requestBody?.content['application/json']?.schema as Schema | undefined;
      if (!schema) continue;
      const keyed = (located.operation.security ?? []).length > 0;
      const required = (resolved(schema, components).required ?? []) as string[];
      const broken = requestsOf(located).chain((sent) =>
        fc.constantFrom(
          { ...sent, body: { ...sent.body, not_in_the_document: 1 } },
          ...required.map((name) => {
            const body = { ...sent.body };
            delete body[name];
            return { ...sent, body };
          }),
        ),
      );
      await fc.assert(
        fc.asyncProperty(broken, async (sent) => {
          const response = await send(located.method, sent, keyed);
          expect({ id, status: response.status, code: response.body.code }).toEqual({
            id,
            status: 400,
            code: 'validation_failed',
          });
          contract.expectConforms(id, response);
        }),
        { numRuns: 10 },
      );
      refused.push(id);
    }
    expect(refused).toEqual(expect.arrayContaining(['createAnchor', 'createTravel', 'manipulateEvent']));
  });
});
