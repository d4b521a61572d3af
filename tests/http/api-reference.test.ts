import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { buildContainer } from '../../src/composition/container';
import { allRoutes } from '../../src/interfaces/http/app';
import { openApiPath } from '../../src/interfaces/http/openapi/operation';
import type { Route } from '../../src/interfaces/http/route';
import {
  boundsDiffering,
  described,
  documentedFields,
  documentFields,
  fieldSchema,
} from '../support/http/api-reference-fields';
import type { OpenApiDocument, OpenApiOperation } from '../support/http/openapi-contract';
import { startTestApp, type TestApp } from '../support/http/test-app';

/**
 * docs/api.md is written by hand: these checks keep it to the operations the service runs, their
 * error codes and their request fields.
 */
describe('docs/api.md', () => {
  let t: TestApp;
  let routes: Route[];
  let document: OpenApiDocument;
  const reference = readFileSync(join(__dirname, '../../docs/api.md'), 'utf8');
  const sections = new Map(
    reference
      .split(/^### /m)
      .slice(1)
      .map((section) => [section.slice(0, section.indexOf('\n')).replaceAll('`', '').trim(), section]),
  );
  const heading = (route: Route) => `${route.method.toUpperCase()} ${openApiPath(route.path)}`;

  beforeAll(async () => {
    t = await startTestApp();
    routes = allRoutes(buildContainer({ prisma: t.prisma, sql: t.sql, wallClock: t.clock }));
    document = (await request(t.app).get('/openapi.json').expect(200)).body;
  });
  afterAll(() => t.close());
  const operationOf = (route: Route): OpenApiOperation => {
    const operation = document.paths[openApiPath(route.path)]?.[route.method];
    if (!operation) throw new Error(`${heading(route)} is not in the document`);
    return operation;
  };
  const fieldsOf = (route: Route) => documentedFields(sections.get(heading(route)) ?? '', (name) => sections.get(name));

  it('has one section for every operation, and none for an operation that does not exist', () => {
    expect([...sections.keys()].sort()).toEqual(routes.map(heading).sort());
  });

  it("names every error code an operation declares in that operation's section", () => {
    const missing = routes.flatMap((route) =>
      (route.docs?.errors ?? [])
        .filter((code) => !sections.get(heading(route))?.includes(code))
        .map((code) => `${heading(route)}: ${code}`),
    );
    expect(missing).toEqual([]);
  });

  it('gives every operation needing a key the permission its security names, in the permissions table', () => {
    const table = new Map(
      [...reference.matchAll(/^\| `([A-Z]+ \S+)` \| `([a-z_]+:[a-z]+)` \|$/gm)].map(([, operation, scope]) => [
        operation,
        scope,
      ]),
    );
    const declared = new Map(
      routes.filter((route) => route.scope !== null).map((route) => [heading(route), route.scope]),
    );
    expect(Object.fromEntries(table)).toEqual(Object.fromEntries(declared));
  });

  it('links every operation from its table of contents', () => {
    const linked = [...reference.matchAll(/^\| [^|]+ \| \[`([^`]+)`\]\(#[^)]+\)/gm)].map(([, operation]) => operation);
    expect(linked.sort()).toEqual(routes.map(heading).sort());
  });

  it("documents each operation's request fields as the document has them: names, types, required", () => {
    const differing = routes.flatMap((route) => {
      const ours = fieldsOf(route).map(described).sort();
      const theirs = documentFields(document, operationOf(route)).map(described).sort();
      return [
        ...ours.filter((field) => !theirs.includes(field)).map((field) => `${heading(route)}: api.md has ${field}`),
        ...theirs
          .filter((field) => !ours.includes(field))
          .map((field) => `${heading(route)}: the document has ${field}`),
      ];
    });
    expect(differing).toEqual([]);
  });

  it('names only the bounds the document holds (lengths, ranges)', () => {
    const differing = routes.flatMap((route) =>
      fieldsOf(route).flatMap((field) => {
        const schema = fieldSchema(document, operationOf(route), field.name);
        return schema ? boundsDiffering(field, schema).map((wrong) => `${heading(route)}: ${wrong}`) : [];
      }),
    );
    expect(differing).toEqual([]);
  });
});

describe("api.md's fields against the document", () => {
  const section = [
    '### `POST /v1/x`',
    '',
    '| field | type | rules |',
    '|---|---|---|',
    '| `name` | string | required; up to 200 characters |',
    '| `when` | date-time | optional |',
    '| `limit` | integer | optional; 1 to 500 |',
    '',
    '| `event` | `data` | when |',
  ].join('\n');
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: {},
    paths: {},
    components: {
      schemas: {
        X: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', maxLength: 100 },
            when: { type: 'string', format: 'date-time' },
            limit: { type: 'integer', minimum: 1, maximum: 500 },
            tags: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    },
  };
  const operation: OpenApiOperation = {
    operationId: 'x',
    responses: {},
    requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/X' } } } },
  };

  it('reads the table of fields, and a section that takes the same body as another', () => {
    const fields = documentedFields(section, () => undefined).map(described);
    expect(fields).toEqual(['name: string, required', 'when: date-time, optional', 'limit: integer, optional']);
    const same = 'The same body as [`POST /v1/x`](#post-v1x).';
    expect(documentedFields(same, () => section)).toHaveLength(3);
  });

  it('would catch a field the document has and api.md lacks, and a bound that differs', () => {
    const ours = documentedFields(section, () => undefined);
    const theirs = documentFields(document, operation).map(described);
    expect(theirs.filter((field) => !ours.map(described).includes(field))).toEqual([
      'tags: array of strings, optional',
    ]);
    const [name] = ours;
    expect(name && boundsDiffering(name, fieldSchema(document, operation, 'name') ?? {})).toEqual([
      'name: maxLength 200 in api.md, 100 in the document',
    ]);
  });
});
