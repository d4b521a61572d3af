// Every operation of the OpenAPI document the service serves, sent with keys holding none, read or
// write of the resource its `security` names: each answered as the document declares, a key below
// the permission refused with 403 before anything changes. Derived from the document, so an
// operation added later is covered as it is declared.
import request from 'supertest';
import {
  ACCESS_LEVELS,
  MANAGE_API_KEYS,
  permissionsOf,
  resourceOf,
  RESOURCES,
  type AccessLevel,
  type Resource,
  type Scope,
} from '../../src/core/domain/api-key-permissions';
import { CreateApiKey } from '../../src/core/use-cases/api-keys/create-api-key';
import { declaredScope } from '../support/http/operation-scopes';
import { OpenApiContract, type LocatedOperation, type OpenApiDocument } from '../support/http/openapi-contract';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';

/** A key and its id, as the 403 names it. */
interface Key {
  readonly secret: string;
  readonly id: string;
}

/** Which levels a scope admits, written out here rather than asked of the code under test. */
const ADMITTED: Readonly<Record<'read' | 'write', readonly AccessLevel[]>> = {
  read: ['read', 'write'],
  write: ['write'],
};

/**
 * The account's rows that any operation reads or writes. Each key's last use is left out: the
 * authentication of any request with the key records it (once a minute), refused or not, as it
 * says when the key was last presented, not what it did.
 */
async function stateOf(t: TestApp, accountId: string): Promise<unknown> {
  const where = { where: { accountId } };
  const [traveller, timelines, anchors, items, travels, events, manipulations, endpoints, messages, keyed, keys] =
    await Promise.all([
      t.prisma.traveller.findMany(where),
      t.prisma.timeline.findMany({ ...where, orderBy: { id: 'asc' } }),
      t.prisma.anchor.findMany({ ...where, orderBy: { id: 'asc' } }),
      t.prisma.item.findMany({ ...where, orderBy: { id: 'asc' } }),
      t.prisma.travel.findMany({ ...where, orderBy: { id: 'asc' } }),
      t.prisma.event.findMany({ ...where, orderBy: { id: 'asc' } }),
      t.prisma.eventManipulation.findMany({ ...where, orderBy: { id: 'asc' } }),
      t.prisma.webhookEndpoint.findMany({ ...where, orderBy: { id: 'asc' } }),
      t.prisma.webhookMessage.findMany({ ...where, orderBy: { id: 'asc' } }),
      t.prisma.idempotencyKey.findMany({ ...where, orderBy: { key: 'asc' } }),
      t.prisma.apiKey.findMany({ ...where, orderBy: { id: 'asc' } }),
    ]);
  const keysWithoutUse = keys.map(({ lastUsedAt: _lastUse, ...key }) => key);
  return {
    traveller,
    timelines,
    anchors,
    items,
    travels,
    events,
    manipulations,
    endpoints,
    messages,
    keyed,
    keysWithoutUse,
  };
}

/** The request an operation's examples make: its path parameters, its query (GET, HEAD) or its JSON body. */
function exampleRequest(t: TestApp, { method, path, operation }: LocatedOperation, key: string): request.Test {
  const parameters = operation.parameters ?? [];
  const examples = (where: string) =>
    Object.fromEntries(
      parameters
        .filter((parameter) => parameter.in === where && parameter.example !== undefined)
        .map((parameter) => [parameter.name, String(parameter.example)]),
    );
  const pathValues = examples('path');
  const url = path.replace(/\{(\w+)\}/g, (_whole, name: string) => encodeURIComponent(pathValues[name] ?? 'x'));
  const client = request(t.app);
  const verb = method === 'get' || method === 'head' || method === 'post' || method === 'patch' ? method : 'delete';
  const sent = client[verb](url).set('Authorization', `Bearer ${key}`).query(examples('query'));
  const body = operation.requestBody?.content['application/json']?.example;
  return typeof body === 'object' && body !== null ? sent.send(body) : sent;
}

describe('permissions, operation by operation of the OpenAPI document', () => {
  let t: TestApp;
  let account: TestAccount;
  let contract: OpenApiContract;
  let operations: LocatedOperation[];
  /** By resource and level: a key holding that level of it, and the opposite of the others. */
  const keys = new Map<string, Key>();

  beforeAll(async () => {
    t = await startTestApp();
    account = await t.signUp();
    const document: OpenApiDocument = (await request(t.app).get('/openapi.json')).body;
    contract = new OpenApiContract(document);
    operations = contract.operations();
    const createApiKey = t.container.get(CreateApiKey);
    for (const resource of RESOURCES) {
      for (const level of ACCESS_LEVELS) {
        // The others at write where this one may refuse, at none where it admits everything: the
        // answer depends on this resource's level alone.
        const others: AccessLevel = level === 'write' ? 'none' : 'write';
        const given: Partial<Record<Resource, AccessLevel>> = {};
        for (const each of RESOURCES) given[each] = each === resource ? level : others;
        const issued = await createApiKey.execute({
          accountId: account.id,
          name: `${resource} ${level}`,
          permissions: permissionsOf(given),
        });
        keys.set(`${resource}:${level}`, { secret: issued.secret, id: issued.key.id });
      }
    }
  });
  afterAll(() => t.close());

  const keyOf = (resource: Resource, level: AccessLevel): Key => {
    const key = keys.get(`${resource}:${level}`);
    if (!key) throw new Error(`no key for ${resource} ${level}`);
    return key;
  };

  /** The refusal, with the permission and the key named, and the account's rows as they were. */
  async function expectRefused(located: LocatedOperation, scope: Scope, key: Key): Promise<void> {
    const before = await stateOf(t, account.id);
    const response = await exampleRequest(t, located, key.secret);
    const label = `${located.method.toUpperCase()} ${located.path} with ${key.id}`;
    expect({ label, status: response.status }).toEqual({ label, status: 403 });
    expect(response.headers['www-authenticate']).toBe(
      `Bearer realm="time-navigation", error="insufficient_scope", scope="${scope}"`,
    );
    if (located.method !== 'head') {
      expect(response.body).toMatchObject({
        code: 'insufficient_permissions',
        required_permission: scope,
        key_id: key.id,
      });
      // The document's example is this answer, but for the key and the request.
      const documented = located.operation.responses['403']?.content?.['application/problem+json'];
      expect(response.body).toEqual({
        ...Object(documented?.examples?.insufficient_permissions?.value),
        key_id: key.id,
        request_id: response.headers['x-request-id'],
      });
    }
    contract.expectConforms(located.operation.operationId, response);
    expect(await stateOf(t, account.id)).toEqual(before);
  }

  /** Answered with a status the operation declares, other than the refusal. */
  async function expectAnswered(located: LocatedOperation, key: string, label: string): Promise<void> {
    const response = await exampleRequest(t, located, key);
    const declared = Object.keys(located.operation.responses).filter((status) => status !== '403');
    expect({ label, status: response.status, declared: declared.includes(String(response.status)) }).toEqual({
      label,
      status: response.status,
      declared: true,
    });
  }

  it('answers each operation needing a key by the level of its resource: below the permission, 403', async () => {
    let checked = 0;
    for (const located of operations) {
      const declared = declaredScope(located.operation);
      if ('fault' in declared) throw new Error(`${located.path}: ${declared.fault}`);
      const scope = declared.scope;
      if (scope === null) continue;
      const resource = resourceOf(scope);
      if (resource === null) continue;
      const needed = scope.endsWith(':read') ? 'read' : 'write';
      for (const level of ACCESS_LEVELS) {
        const key = keyOf(resource, level);
        if (ADMITTED[needed].includes(level)) {
          await expectAnswered(located, key.secret, `${located.method} ${located.path} with ${resource} ${level}`);
        } else {
          await expectRefused(located, scope, key);
        }
        checked += 1;
      }
    }
    // Every operation of Families A, B and C and of the webhook endpoints, HEADs included.
    expect(checked).toBeGreaterThanOrEqual(3 * 40);
  });

  it('refuses every restricted key the operations that manage keys, and answers a full key', async () => {
    const managing = operations.filter((located) => {
      const declared = declaredScope(located.operation);
      return 'scope' in declared && declared.scope === MANAGE_API_KEYS;
    });
    // Create, list (and its HEAD), change and revoke.
    expect(managing).toHaveLength(5);
    for (const located of managing) {
      for (const resource of RESOURCES) await expectRefused(located, MANAGE_API_KEYS, keyOf(resource, 'write'));
      await expectAnswered(located, account.apiKey, `${located.method} ${located.path} with a full key`);
    }
  });
});
