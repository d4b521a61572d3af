import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import request from 'supertest';
import { buildContainer } from '../../src/composition/container';
import { allRoutes } from '../../src/interfaces/http/app';
import { TravelToMomentDto } from '../../src/interfaces/http/dtos/shared.dto';
import { STATUS_BY_CODE } from '../../src/interfaces/http/error-statuses';
import { documentationGaps } from '../../src/interfaces/http/openapi/coverage';
import { errorCodesOf } from '../../src/interfaces/http/openapi/problems';
import { buildOpenApiDocument } from '../../src/interfaces/http/openapi/document';
import { openApiPath } from '../../src/interfaces/http/openapi/operation';
import { TimeRange } from '../../src/core/domain/time-range';
import { EXAMPLE_IDS } from '../../src/interfaces/http/dtos/responses/ids';
import { decodeStreamPosition, streamScope } from '../../src/interfaces/http/event-stream/stream-position';
import { defineRoute, type Route } from '../../src/interfaces/http/route';
import { OpenApiContract, type OpenApiDocument, type OpenApiOperation } from '../support/http/openapi-contract';
import { CHANGELOG_FILE, DOCUMENT_FILE, documentText, WRITE_COMMAND } from '../../scripts/openapi-file';
import { resolved } from '../support/http/schema-arbitrary';
import { declaredScope, scopeFaults } from '../support/http/operation-scopes';
import { startTestApp, type TestApp } from '../support/http/test-app';

/** Why the committed document is not the served one (its first line that differs), or undefined. */
function staleness(committed: string, served: string): string | undefined {
  if (committed === served) return undefined;
  const [ours, theirs] = [committed.split('\n'), served.split('\n')];
  const index = ours.findIndex((line, at) => line !== theirs[at]);
  const at = index === -1 ? ours.length : index;
  const shown = (line: string | undefined) =>
    line === undefined ? 'the end of the file' : `«${line.trim().slice(0, 100)}»`;
  return (
    `${DOCUMENT_FILE} is not the document GET /openapi.json serves: line ${at + 1} is ${shown(ours[at])}, ` +
    `served ${shown(theirs[at])}. Run ${WRITE_COMMAND} and add an entry to ${CHANGELOG_FILE} naming its digest.`
  );
}

describe('GET /openapi.json', () => {
  let t: TestApp;
  let routes: Route[];
  let document: OpenApiDocument;
  let contract: OpenApiContract;
  let text: string;
  beforeAll(async () => {
    t = await startTestApp();
    routes = allRoutes(buildContainer({ prisma: t.prisma, sql: t.sql, wallClock: t.clock }));
    const response = await request(t.app).get('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    document = response.body;
    text = response.text;
    contract = new OpenApiContract(document);
  });
  afterAll(() => t.close());

  it('is served without a key and is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0');
    // validate() dereferences its argument in place: each call parses its own copy.
    await expect(SwaggerParser.validate(JSON.parse(text))).resolves.toBeDefined();
  });

  it('would be refused if it were not valid', async () => {
    const broken = JSON.parse(text);
    broken.paths['/timelines'].get.parameters.push({ name: 'colour' });
    await expect(SwaggerParser.validate(broken)).rejects.toThrow();
  });

  it('describes responses closely enough to refuse a wrong one', () => {
    const timeline = { $ref: '#/components/schemas/TimelineResponse' };
    expect(contract.violations(timeline, { id: 'primary' })).not.toEqual([]);
    const example =
      contract.operation('getTimeline').operation.responses['200']?.content?.['application/json']?.example;
    expect(contract.violations(timeline, example)).toEqual([]);
    expect(contract.violations(timeline, { ...Object(example), colour: 'red' })).not.toEqual([]);
    expect(contract.violations(timeline, { ...Object(example), created_at: 'yesterday' })).not.toEqual([]);
  });

  it('is the document built from the route table the service runs', () => {
    expect(document).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(routes))));
  });

  it(`is ${DOCUMENT_FILE}, the document committed at the root`, () => {
    const committed = readFileSync(join(__dirname, '../..', DOCUMENT_FILE), 'utf8');
    expect(staleness(committed, documentText(document))).toBeUndefined();
  });

  it(`says where ${DOCUMENT_FILE} differs and what rewrites it`, () => {
    const served = documentText(document);
    expect(staleness(served.replace('"openapi": "3.1.0"', '"openapi": "3.0.3"'), served)).toBe(
      `${DOCUMENT_FILE} is not the document GET /openapi.json serves: line 2 is «"openapi": "3.0.3",», ` +
        `served «"openapi": "3.1.0",». Run ${WRITE_COMMAND} and add an entry to ${CHANGELOG_FILE} naming its digest.`,
    );
    expect(staleness(served.trimEnd(), served)).toMatch(/line \d+ is the end of the file, served «»/);
    expect(staleness(`${served}\n`, served)).toMatch(/line \d+ is «», served the end of the file/);
  });

  it('says what the service checks: a whole-number limit, a path id of 1 to 200 characters', () => {
    const parameters = contract.operations().flatMap(({ operation }) => operation.parameters ?? []);
    const limits = parameters.filter((parameter) => parameter.name === 'limit');
    expect(limits.length).toBeGreaterThan(0);
    for (const limit of limits) expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1 });
    const ids = parameters.filter((parameter) => parameter.in === 'path');
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect(id.schema).toMatchObject({ type: 'string', minLength: 1, maxLength: 200 });
  });

  it('lists items_stranded among the refusals of a travel home', () => {
    const conflict = contract.operation('createTravel').operation.responses['409'];
    expect(Object.keys(conflict?.content?.['application/problem+json']?.examples ?? {})).toContain('items_stranded');
  });

  it('declares every member a problem may carry, as docs/errors.md lists them', () => {
    const errorsDoc = readFileSync(join(__dirname, '../../docs/errors.md'), 'utf8');
    const members = errorsDoc
      .split('\n')
      .filter((line) => /^\| `[a-z_]+` \| \d{3} \|/.test(line))
      .flatMap((line) => [...(line.split('|').at(-2) ?? '').matchAll(/`([a-z_]+)`/g)].map(([, name]) => name));
    expect(members).toContain('item_ids');
    const problem = document.components.schemas?.ProblemResponse as { properties: Record<string, unknown> };
    expect([...new Set(members)].filter((member) => !(member! in problem.properties))).toEqual([]);
  });

  describe('and docs/api.md, which tells the same operations in prose', () => {
    const apiDoc = () => readFileSync(join(__dirname, '../../docs/api.md'), 'utf8');
    /** `METHOD /path` of each operation a client calls: not the probes, not a GET's HEAD. */
    const operationsOfDocument = () =>
      contract
        .operations()
        .filter(({ method, path }) => method !== 'head' && !/^\/(healthz|readyz)$/.test(path))
        .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
        .sort();
    /** The text of the section of one operation, up to the next heading. */
    const sectionOf = (text: string, operation: string) => text.split(`### \`${operation}\``)[1]?.split(/\n##/)[0];

    it('lists every operation of the document in its contents and gives each a section', () => {
      const text = apiDoc();
      const listed = [...text.matchAll(/^\| [^|]+ \| \[`([A-Z]+ [^`]+)`\]/gm)].map(([, operation]) => operation);
      expect([...listed].sort()).toEqual(operationsOfDocument());
      for (const operation of listed)
        expect({ operation, section: sectionOf(text, operation) !== undefined }).toEqual({
          operation,
          section: true,
        });
    });

    it('lists in each field table exactly the fields the document takes, required as it requires them', () => {
      const text = apiDoc();
      const operations = contract
        .operations()
        .filter(({ method, path }) => method !== 'head' && !/^\/(healthz|readyz|openapi\.json)$/.test(path));
      // A section without a table of its own says "the same ... as [`OTHER`](#...)": the fields are written once.
      const fieldsTold = (operation: string): Record<string, string> => {
        const section = sectionOf(text, operation) ?? '';
        const rows = [...section.matchAll(/^\| `([a-z_]+)` \| [^|]+ \| (required|optional)\b/gm)];
        const same = /\bsame\b[^.]*?\bas\s+\[`([A-Z]+ [^`]+)`\]\(#/i.exec(section.split('\n\n')[1] ?? '');
        if (rows.length === 0 && same?.[1]) return fieldsTold(same[1]);
        return Object.fromEntries(rows.map(([, field, rule]) => [field, rule]));
      };
      const told = operations.map(({ method, path }) => {
        const operation = `${method.toUpperCase()} ${path}`;
        return { operation, fields: fieldsTold(operation) };
      });
      const taken = operations.map(({ method, path, operation }) => ({
        operation: `${method.toUpperCase()} ${path}`,
        fields: fieldsOf(operation),
      }));
      expect(told).toEqual(taken);
    });

    /** What the document takes: a body's properties, or else the query's parameters (a GET's body mirrors them). */
    const fieldsOf = (operation: OpenApiOperation): Record<string, 'required' | 'optional'> => {
      const body = operation.requestBody?.content['application/json']?.schema;
      if (body && !operation.parameters?.some((parameter) => parameter.in === 'query')) {
        const schema = resolved(body, document.components.schemas) as {
          properties?: Record<string, unknown>;
          required?: string[];
        };
        return Object.fromEntries(
          Object.keys(schema.properties ?? {}).map((field) => [
            field,
            schema.required?.includes(field) ? 'required' : 'optional',
          ]),
        );
      }
      return Object.fromEntries(
        (operation.parameters ?? [])
          .filter((parameter) => parameter.in === 'query')
          .map((parameter) => [parameter.name, parameter.required ? 'required' : 'optional']),
      );
    };

    it("names, in each operation's errors, exactly the codes its route adds to the common ones", () => {
      const text = apiDoc();
      for (const route of routes) {
        if (!route.docs) continue;
        const operation = `${route.method.toUpperCase()} ${openApiPath(route.path)}`;
        const errorsLine = sectionOf(text, operation)?.split('\nErrors:')[1]?.split('\n\n')[0] ?? '';
        const named = [...errorsLine.matchAll(/`\d{3} ([a-z_]+)`/g)].map(([, code]) => code);
        const common = new Set(errorCodesOf({ ...route, docs: { ...route.docs, errors: [] } }));
        expect({ operation, codes: [...new Set(named.filter((code) => !common.has(code!)))].sort() }).toEqual({
          operation,
          codes: [...route.docs.errors].sort(),
        });
      }
    });
  });

  it('leaves no route of the table undocumented', () => {
    expect(documentationGaps(routes)).toEqual([]);
  });

  it('has an operation for every route, with summary, success, error responses and its security', () => {
    for (const route of routes) {
      const operation = document.paths[openApiPath(route.path)]?.[route.method];
      expect({ route: route.operationId, operation: operation?.operationId }).toEqual({
        route: route.operationId,
        operation: route.operationId,
      });
      if (!operation || !route.docs) continue;
      expect(operation.summary).toBe(route.summary);
      expect(Object.keys(operation.responses)).toContain(String(route.docs.status));
      for (const code of route.docs.errors)
        expect(Object.keys(operation.responses)).toContain(String(STATUS_BY_CODE[code]));
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['400', '413', '415', '500']));
      if (route.scope !== null) {
        expect(operation.responses['401']).toBeDefined();
        expect(operation.responses['403']).toBeDefined();
        expect(operation.security).toEqual([{ bearerAuth: [route.scope] }]);
      } else {
        expect(operation.security).toEqual([]);
      }
    }
    // The route table, its GETs' HEADs (but of a GET that registers something), and the probes
    // app.ts answers beside it.
    const heads = routes
      .filter((route) => route.method === 'get' && !route.changesState)
      .map((route) => `${route.operationId}Head`);
    expect(
      contract
        .operations()
        .map(({ operation }) => operation.operationId)
        .sort(),
    ).toEqual([...routes.map((route) => route.operationId), ...heads, 'health', 'readiness'].sort());
    expect(heads).not.toContain('retrieveItemHead');
  });

  it('names as the scope of every operation needing a key the one permission it needs, and none elsewhere', () => {
    expect(scopeFaults(document)).toEqual([]);
    const needingKeys = contract.operations().filter(({ operation }) => operation.security?.length !== 0);
    expect(needingKeys.length).toBeGreaterThan(30);
    expect(contract.operation('createAccount').operation.security).toEqual([]);
    expect(contract.operation('manipulateEvent').operation.security).toEqual([{ bearerAuth: ['events:write'] }]);
    // The cases the permissions table singles out: Family C's travel is the clock's, Family A's a
    // travel's; a GET that registers needs write, a query sent as a POST read; a stream events:read.
    const scopes = Object.fromEntries(
      ['scenarioTravel', 'travelToMoment', 'retrieveItem', 'scanEvents', 'checkParadoxes', 'monitorEvents'].map(
        (id) => [id, contract.operation(id).operation.security],
      ),
    );
    expect(scopes).toEqual({
      scenarioTravel: [{ bearerAuth: ['clock:write'] }],
      travelToMoment: [{ bearerAuth: ['travels:write'] }],
      retrieveItem: [{ bearerAuth: ['items:write'] }],
      scanEvents: [{ bearerAuth: ['events:read'] }],
      checkParadoxes: [{ bearerAuth: ['paradoxes:read'] }],
      monitorEvents: [{ bearerAuth: ['events:read'] }],
    });
  });

  it('shows in every 403 the permission the operation needs and the key, as the refusal carries them', () => {
    const refusals = contract.operations().filter(({ operation }) => operation.responses['403']?.content);
    expect(refusals.length).toBeGreaterThan(30);
    for (const { operation } of refusals) {
      const declared = declaredScope(operation);
      const scope = 'scope' in declared ? declared.scope : null;
      expect({ operation: operation.operationId, scope }).toEqual({
        operation: operation.operationId,
        scope: expect.any(String),
      });
      const content = operation.responses['403']?.content?.['application/problem+json'];
      const example = content?.examples?.insufficient_permissions?.value;
      expect({ operation: operation.operationId, example }).toEqual({
        operation: operation.operationId,
        example: {
          type: '/problems/insufficient_permissions',
          title: 'Forbidden',
          status: 403,
          detail: `This API key lacks the permission ${scope}, which this operation needs.`,
          code: 'insufficient_permissions',
          required_permission: scope,
          key_id: EXAMPLE_IDS.apiKey,
          request_id: expect.any(String),
        },
      });
      const schema = content?.schema ?? {};
      expect(contract.violations(schema, example)).toEqual([]);
      const { required_permission: _permission, ...withoutPermission } = Object(example);
      const { key_id: _key, ...withoutKey } = Object(example);
      expect(contract.violations(schema, withoutPermission)).not.toEqual([]);
      expect(contract.violations(schema, withoutKey)).not.toEqual([]);
      const another = scope === 'anchors:read' ? 'anchors:write' : 'anchors:read';
      expect(contract.violations(schema, { ...Object(example), required_permission: another })).not.toEqual([]);
    }
  });

  it('would fail an operation declaring no permission, two of them, or one the service does not know', () => {
    const broken = (security: unknown[] | undefined): Pick<OpenApiDocument, 'paths'> => ({
      paths: { '/v1/anchors': { post: { ...contract.operation('createAnchor').operation, security } } },
    });
    expect(scopeFaults(broken([{ bearerAuth: [] }]))).toEqual(['POST /v1/anchors names 0 scopes, not one']);
    expect(scopeFaults(broken([{ bearerAuth: ['anchors:write', 'anchors:read'] }]))).toEqual([
      'POST /v1/anchors names 2 scopes, not one',
    ]);
    expect(scopeFaults(broken([{ bearerAuth: ['anchors:admin'] }]))).toEqual([
      'POST /v1/anchors names the unknown scope anchors:admin',
    ]);
    expect(scopeFaults(broken(undefined))).toEqual(['POST /v1/anchors declares no security']);
    expect(scopeFaults(broken([{ bearerAuth: ['anchors:write'] }, { bearerAuth: ['anchors:read'] }]))).toEqual([
      'POST /v1/anchors declares 2 security requirements',
    ]);
  });

  it('names its licence and a contact, and describes every operation beyond its summary', () => {
    expect(document.info.license).toEqual({ name: expect.any(String), identifier: 'LicenseRef-Proprietary' });
    expect(document.info.contact).toEqual({ name: expect.stringMatching(/\S/) });
    const undescribed = contract
      .operations()
      .filter(({ operation }) => !operation.description?.trim() || operation.description === operation.summary);
    expect(undescribed.map(({ operation }) => operation.operationId)).toEqual([]);
  });

  it('keeps no component that nothing refers to', () => {
    const referred = new Set(text.match(/"#\/components\/[a-zA-Z]+\/[^"]+"/g)?.map((ref) => ref.slice(1, -1)));
    const components = Object.entries(document.components).flatMap(([kind, named]) =>
      kind === 'securitySchemes' ? [] : Object.keys(named).map((name) => `#/components/${kind}/${name}`),
    );
    expect(components.filter((component) => !referred.has(component))).toEqual([]);
    expect(Object.keys(document.components.schemas)).not.toContain('ListTimelinesQueryDto');
  });

  it('declares X-Request-Id on every answer, and 503 with Retry-After on every operation reaching the database', () => {
    const missing: string[] = [];
    for (const { operation } of contract.operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (contract.header(response, 'X-Request-Id')?.required !== true)
          missing.push(`${operation.operationId} ${status}: X-Request-Id`);
      }
      // Only the liveness probe answers without the database.
      if (operation.operationId === 'health') continue;
      const unavailable = operation.responses['503'];
      if (!unavailable) missing.push(`${operation.operationId}: no 503`);
      else if (contract.header(unavailable, 'Retry-After')?.required !== true)
        missing.push(`${operation.operationId} 503: Retry-After`);
    }
    expect(missing).toEqual([]);
    expect(contract.operation('health').operation.responses['503']).toBeUndefined();
  });

  it('types request_id in every problem as the string it is', () => {
    const problem = { $ref: '#/components/schemas/ProblemResponse' };
    const example = {
      type: '/problems/rate_limited',
      title: 'Too Many Requests',
      status: 429,
      detail: 'Slow down.',
      code: 'rate_limited',
    };
    expect(contract.violations(problem, { ...example, request_id: 'trace-123' })).toEqual([]);
    expect(contract.violations(problem, { ...example, request_id: 42 })).not.toEqual([]);
    expect(contract.violations(problem, example)).not.toEqual([]);
  });

  it('documents the event stream of monitor-events: its media type, Last-Event-ID, ids a client can send back', () => {
    const operation = document.paths['/v1/monitor-events']?.get as unknown as {
      parameters: Array<{ name: string; in: string }>;
      responses: Record<string, { content: Record<string, { example?: string }> }>;
    };
    expect(operation.parameters).toContainEqual(expect.objectContaining({ name: 'Last-Event-ID', in: 'header' }));
    expect(Object.keys(operation.responses['200']?.content ?? {})).toEqual(['application/json', 'text/event-stream']);
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['429', '503']));
    const example = operation.responses['200']?.content['text/event-stream']?.example ?? '';
    const ids = [...example.matchAll(/^id: (\S+)$/gm)].map((match) => match[1] ?? '');
    expect(ids).toHaveLength(2);
    // Ids of the operation's own example: its place and range, on the examples' account.
    const range = TimeRange.parse('1969-07-20T00:00:00Z/1969-07-21T00:00:00Z');
    const scope = streamScope(EXAMPLE_IDS.account, 'Sea of Tranquility', range);
    for (const id of ids)
      expect(decodeStreamPosition(id)).toMatchObject({ position: { timelineId: 'primary' }, scope });
    // Only the operation that streams says so.
    const streaming = Object.entries(document.paths).filter(([, item]) =>
      Object.values(item ?? {}).some((op) =>
        Object.values((op as { responses?: Record<string, { content?: object }> }).responses ?? {}).some(
          (response) => 'text/event-stream' in (response.content ?? {}),
        ),
      ),
    );
    expect(streaming.map(([path]) => path)).toEqual(['/v1/monitor-events']);
  });

  it('documents every family and the account operations', () => {
    const tags = new Set(contract.operations().flatMap(({ operation }) => operation.tags ?? []));
    expect([...tags].sort()).toEqual([
      'API keys',
      'Accounts',
      'Family A: verbs',
      'Family B: resources',
      'Family C: scenarios',
      'Probes',
      'Webhooks',
    ]);
  });

  it('has examples that conform to their own schemas', () => {
    const problems: string[] = [];
    const check = (where: string, schema: Record<string, unknown>, value: unknown) => {
      if (value === undefined) problems.push(`${where}: no example`);
      else problems.push(...contract.violations(schema, value).map((problem) => `${where}: ${problem}`));
    };
    for (const { operation } of contract.operations()) {
      const id = operation.operationId;
      const body = operation.requestBody?.content['application/json'];
      if (body) check(`${id} request`, body.schema, body.example);
      for (const parameter of operation.parameters ?? []) {
        if (parameter.required) check(`${id} ${parameter.name}`, parameter.schema, parameter.example);
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [mediaType, content] of Object.entries(response.content ?? {})) {
          if (mediaType === 'application/json') check(`${id} ${status}`, content.schema, content.example);
          for (const [name, example] of Object.entries(content.examples ?? {}))
            check(`${id} ${status} ${name}`, content.schema, example.value);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('the documentation check', () => {
  const documented = defineRoute(
    {
      method: 'post',
      path: '/v1/probe',
      operationId: 'probe',
      family: 'A',
      scope: 'travels:write',
      summary: 'A probe.',
      body: TravelToMomentDto,
    },
    async () => ({ status: 200, body: {} }),
  );

  it('fails a route that has no documentation', () => {
    expect(documentationGaps([documented])).toEqual([
      'POST /v1/probe has no docs (success status, response class, error codes, example)',
    ]);
  });

  it('fails a route with no description, an unknown error code, a non-success status or input with no example', () => {
    class ProbeResponse {}
    const route: Route = {
      ...documented,
      summary: ' ',
      docs: { description: ' ', status: 404, response: ProbeResponse, errors: ['no_such_code'] },
    };
    expect(documentationGaps([route])).toEqual([
      'POST /v1/probe has no summary',
      'POST /v1/probe has no description',
      'POST /v1/probe documents 404 as its success',
      'POST /v1/probe names error code no_such_code, which error-statuses.ts does not know',
      'POST /v1/probe takes input but has no example request',
    ]);
  });
});
