import { randomBytes } from 'node:crypto';
import request, { type Response } from 'supertest';
import { buildContainer } from '../../src/composition/container';
import { allRoutes } from '../../src/interfaces/http/app';
import { EXAMPLE_IDS } from '../../src/interfaces/http/dtos/responses/ids';
import { STATUS_BY_CODE } from '../../src/interfaces/http/error-statuses';
import type { Family, Route } from '../../src/interfaces/http/route';
import { accountState, identifiersIn, type AccountState } from '../support/isolation/account-state';
import {
  identifierEntryPoints,
  isRecord,
  operationOf,
  type EntryPoint,
  type IdentifierCoverage,
  type Kind,
  type OpenApiDocument,
} from '../support/isolation/identifier-fields';
import { requestFor, send, type OwnRecords, type Target } from '../support/isolation/requests';
import { ALL_TIME, asAccount, type AccountClient } from '../support/http/as-account';
import { startTestApp, type TestApp } from '../support/http/test-app';

// Generated from the route table: every place an operation takes an identifier (path parameters,
// body and query fields, lists, nested lists) is found in the OpenAPI document built from the
// routes' input classes. There Mallory names each of Alice's records, and the answer must be
// exactly the answer to a well-formed identifier that exists nowhere (apart from the identifier
// itself and the request id): a documented 404 or 422 problem, never a 403 or a 5xx. Nothing
// Mallory sends may change Alice's stored state, nor, when refused, Mallory's own.

/** The problem statuses an unknown identifier may answer (docs/errors.md): not found, or an unknown reference. */
const UNKNOWN_IDENTIFIER_STATUSES = [404, 422];
const UNKNOWN_IDENTIFIER_CODE = /_not_found$|^unknown_/;
const FAMILIES: readonly Family[] = ['A', 'B', 'C', 'webhooks', 'api-keys'];
/** Text only Alice's records carry: it must never reach Mallory. */
const ALICE_MARK = 'Alice-private';
/** Columns that record use of a key or session, which any request of the account may touch. */
const USE_COLUMNS = ['last_used_at', 'last_seen_at'];
const IDEMPOTENCY_KEY = 'Idempotency-Key';
/** Hundreds of requests each: room for a busy machine and the embedded database. */
const MANY_REQUESTS_MS = 90_000;

describe('isolation between accounts, for every operation that takes an identifier', () => {
  let t: TestApp;
  let routes: Route[];
  let document: OpenApiDocument;
  let coverage: IdentifierCoverage;

  beforeAll(async () => {
    t = await startTestApp();
    routes = allRoutes(buildContainer({ prisma: t.prisma, sql: t.sql, wallClock: t.clock }));
    document = (await request(t.app).get('/openapi.json')).body;
    coverage = identifierEntryPoints(routes, document);
  });
  afterAll(() => t.close());

  it('finds where identifiers enter, in every family, and knows what each such field names', () => {
    expect(coverage.unmapped).toEqual([]);
    expect(coverage.unused).toEqual([]);
    expect(new Set(coverage.entryPoints.map((entry) => entry.route.family))).toEqual(new Set(FAMILIES));
  });

  describe("Mallory, with Alice's records of every kind", () => {
    let alice: AccountClient;
    let mallory: AccountClient;
    let malloryOwn: OwnRecords;
    let aliceIds: { readonly id: string; readonly prefix: string }[];
    /** Whatever of Alice's may never appear in an answer to Mallory: her identifiers, her key, her private text. */
    let aliceSecrets: string[];

    beforeAll(async () => {
      alice = asAccount(t, await t.signUp());
      mallory = asAccount(t, await t.signUp());
      const aliceOwn = await aliceJourney(alice);
      // Alice also uses every operation once, as Mallory will: her records sit where Mallory's requests look.
      // Her writes carry Idempotency-Keys that Mallory will use too.
      for (const route of authenticated(routes))
        await succeeded(sendAs(alice, route, aliceOwn, undefined, aliceKeys(route)), `Alice's ${describeRoute(route)}`);
      malloryOwn = await ownRecords(mallory, 'Mallory');
      const aliceState = await accountState(t.prisma, alice.account.id);
      aliceIds = identifiersIn(aliceState);
      aliceSecrets = [
        ...aliceIds.map(({ id }) => id),
        alice.account.apiKey,
        ALICE_MARK,
        ...webhookSecretsIn(aliceState),
      ];
    }, MANY_REQUESTS_MS);

    it.each(FAMILIES)(
      "family %s: Alice's identifiers answer Mallory exactly as unknown ones, and change nothing",
      async (family) => {
        const entryPoints = coverage.entryPoints.filter((entry) => entry.route.family === family);
        expect(entryPoints.length).toBeGreaterThan(0);
        const before = await states();
        const failures: string[] = [];
        for (const entry of entryPoints) {
          const { named, others } = identifiersToTry(entry);
          if (named.length === 0)
            failures.push(`${entry.label}: Alice has no ${entry.kinds.join(' or ')} to try it with`);
          for (const id of [...named, ...others]) {
            const unknown = unknownLike(id);
            const theirs = await sendAs(mallory, entry.route, malloryOwn, { entry, value: id });
            const none = await sendAs(mallory, entry.route, malloryOwn, { entry, value: unknown });
            failures.push(...faultsOf(entry, id, theirs, unknown, none));
          }
        }
        // Every fault is reported, not only the first.
        expect(failures).toEqual([]);
        expect(await states()).toEqual(before);
      },
      MANY_REQUESTS_MS,
    );

    it(
      "lets Mallory use every operation on her own records, with Alice's Idempotency-Keys, without " +
        "reaching or revealing Alice's",
      async () => {
        const before = await accountState(t.prisma, alice.account.id);
        const failures: string[] = [];
        for (const route of authenticated(routes)) {
          const answer = await sendAs(mallory, route, malloryOwn, undefined, aliceKeys(route));
          if (answer.status >= 300)
            failures.push(`${describeRoute(route)} answers Mallory ${answer.status}: ${answer.text}`);
          // An Idempotency-Key belongs to its account: Alice's answer is never replayed to Mallory.
          if (answer.headers['idempotent-replayed'] !== undefined)
            failures.push(
              `${describeRoute(route)} replays an answer to Mallory's request with Alice's Idempotency-Key`,
            );
          failures.push(...leaksIn(`${describeRoute(route)} as Mallory`, answer.text));
        }
        expect(failures).toEqual([]);
        expect(await accountState(t.prisma, alice.account.id)).toEqual(before);
      },
      MANY_REQUESTS_MS,
    );

    /** A valid request to the route with the account's key, naming its own records (and the target, if any). */
    function sendAs(
      client: AccountClient,
      route: Route,
      own: OwnRecords,
      target?: Target,
      headers?: Readonly<Record<string, string>>,
    ): Promise<Response> {
      return send(t.app, client.account.auth, requestFor(route, document, own, target), headers);
    }

    /** The Idempotency-Key Alice sent with an operation that takes one (the document says which do). */
    function aliceKeys(route: Route): Record<string, string> {
      const parameters = operationOf(route, document).parameters;
      const takesKey =
        Array.isArray(parameters) &&
        parameters.some(
          (parameter) => isRecord(parameter) && parameter.in === 'header' && parameter.name === IDEMPOTENCY_KEY,
        );
      return takesKey ? { [IDEMPOTENCY_KEY]: `alice-${route.operationId}` } : {};
    }

    /** Alice's state, and Mallory's apart from the columns that record the use of her key. */
    async function states(): Promise<{ alice: AccountState; mallory: AccountState }> {
      return {
        alice: await accountState(t.prisma, alice.account.id),
        mallory: await accountState(t.prisma, mallory.account.id, USE_COLUMNS),
      };
    }

    /** Every identifier of Alice's of the kinds the field names, and one of each other kind (refused alike). */
    function identifiersToTry(entry: EntryPoint): { named: string[]; others: string[] } {
      const prefixes = new Set(entry.kinds.map(prefixOf));
      const otherPrefixes = [...new Set(aliceIds.map(({ prefix }) => prefix))].filter(
        (prefix) => !prefixes.has(prefix),
      );
      return {
        named: aliceIds.filter(({ prefix }) => prefixes.has(prefix)).map(({ id }) => id),
        others: otherPrefixes.flatMap((prefix) => aliceIds.find((candidate) => candidate.prefix === prefix)?.id ?? []),
      };
    }

    /** What is wrong with the answers to Alice's identifier and to an unknown one, one sentence each. */
    function faultsOf(entry: EntryPoint, id: string, theirs: Response, unknown: string, none: Response): string[] {
      const where = `${entry.label} = ${id}`;
      const faults: string[] = [];
      const code: unknown = none.body?.code;
      const documented = entry.route.docs?.errors ?? [];
      if (
        !UNKNOWN_IDENTIFIER_STATUSES.includes(none.status) ||
        typeof code !== 'string' ||
        !UNKNOWN_IDENTIFIER_CODE.test(code)
      ) {
        faults.push(
          `${where}: an unknown identifier answers ${none.status} ${String(code)}, not a 404 or 422 ` +
            `unknown-identifier problem: ${none.text}`,
        );
      } else {
        if (STATUS_BY_CODE[code] !== none.status)
          faults.push(`${where}: ${code} answers ${none.status}, error-statuses.ts says ${STATUS_BY_CODE[code]}`);
        if (!documented.includes(code))
          faults.push(`${where}: ${code} is not among the operation's documented errors (${documented.join(', ')})`);
      }
      if (!/^application\/problem\+json\b/.test(String(none.headers['content-type'])))
        faults.push(`${where}: an unknown identifier answers ${String(none.headers['content-type'])}`);
      if (!none.text.includes(unknown)) faults.push(`${where}: the problem does not name the identifier: ${none.text}`);
      const asTheirs = comparable(theirs, id);
      const asNone = comparable(none, unknown);
      if (asTheirs !== asNone)
        faults.push(`${where}: Alice's identifier answers\n    ${asTheirs}\n  an unknown one answers\n    ${asNone}`);
      faults.push(...leaksIn(where, theirs.text.split(id).join('')));
      return faults;
    }

    function leaksIn(where: string, text: string): string[] {
      return aliceSecrets
        .filter((secret) => text.includes(secret))
        .map((secret) => `${where}: the answer carries Alice's ${secret}`);
    }
  });
});

/** An answer as the client sees it, with the identifier it was asked about and the request id taken out. */
function comparable(response: Response, id: string): string {
  const body: unknown = response.body;
  const rest =
    typeof body === 'object' && body !== null
      ? Object.fromEntries(Object.entries(body).filter(([name]) => name !== 'request_id'))
      : body;
  return JSON.stringify({ status: response.status, type: response.headers['content-type'], body: rest })
    .split(id)
    .join('<identifier>');
}

/** The secrets that sign an account's webhooks, which no answer to another account may carry. */
function webhookSecretsIn(state: AccountState): string[] {
  return (state.webhook_endpoints ?? []).flatMap((row) =>
    [row.secret, row.previous_secret].filter((secret): secret is string => typeof secret === 'string'),
  );
}

/** A well-formed identifier of the same kind that exists nowhere. */
function unknownLike(id: string): string {
  return `${id.slice(0, id.indexOf('_'))}_${randomBytes(16).toString('hex')}`;
}

function prefixOf(kind: Kind): string {
  return EXAMPLE_IDS[kind].slice(0, EXAMPLE_IDS[kind].indexOf('_'));
}

function authenticated(routes: readonly Route[]): Route[] {
  return routes.filter((route) => route.scope !== null);
}

function describeRoute(route: Route): string {
  return `${route.method.toUpperCase()} ${route.path}`;
}

async function succeeded(pending: PromiseLike<Response>, what: string): Promise<Response> {
  const response = await pending;
  if (response.status >= 300) throw new Error(`setting up, ${what}: ${response.status} ${response.text}`);
  return response;
}

/** A record of each kind at home, on `primary`, where the account's valid requests can name them. */
async function ownRecords(client: AccountClient, owner: string): Promise<OwnRecords> {
  const anchor = (await succeeded(client.post('/v1/anchors', { description: `${owner} at home` }), 'an anchor')).body
    .id;
  const item = (await succeeded(client.post('/v1/items', { description: `${owner}'s keepsake` }), 'an item')).body.id;
  // Setting the anchor recorded an event at home.
  const events = (
    await succeeded(client.post('/api/v1/scan-events', { location: 'home', time_range: ALL_TIME }), 'events')
  ).body.events;
  const endpoint = {
    url: 'https://example.com/webhooks',
    event_types: ['event.recorded'],
    description: `${owner}'s receiver`,
  };
  const webhookEndpoint = (await succeeded(client.post('/v1/webhook-endpoints', endpoint), 'a webhook endpoint')).body
    .id;
  // A message of the endpoint, for the operations that name one: its test.
  const webhookMessage = (
    await succeeded(client.post(`/v1/webhook-endpoints/${webhookEndpoint}/test`), 'a webhook message')
  ).body.message_id;
  // A restricted key, for the operations that change or revoke one (not the key the account uses).
  const restricted = { name: `${owner}'s widget`, permissions: { events: 'read' } };
  const apiKey = (await succeeded(client.post('/v1/api-keys', restricted), 'an API key')).body.id;
  return { timeline: 'primary', anchor, item, event: events[0].event_id, webhookEndpoint, webhookMessage, apiKey };
}

/**
 * Alice's records of every kind and state: a completed journey (an anchor, an item carried home, a
 * manipulated event on its timeline), a timeline still open, and records at home.
 */
async function aliceJourney(alice: AccountClient): Promise<OwnRecords> {
  const own = await ownRecords(alice, ALICE_MARK);
  const step = (pending: PromiseLike<Response>, what: string) => succeeded(pending, `Alice's journey: ${what}`);
  const journey = (
    await step(
      alice.post('/v1/timelines', {
        name: `${ALICE_MARK} Apollo`,
        destination_time: '1969-07-20T20:17:40Z',
        window: '10080 minutes',
      }),
      'a timeline',
    )
  ).body.id;
  await step(
    alice.post('/v1/timelines', {
      name: `${ALICE_MARK} Globe`,
      destination_time: '1599-06-12T14:00:00Z',
      window: '10080 minutes',
    }),
    'another timeline',
  );
  await step(alice.post('/v1/travels', { destination: journey }), 'travel there');
  const found = (await step(alice.post('/v1/items', { description: `${ALICE_MARK} moon rock` }), 'an item there')).body
    .id;
  await step(alice.post('/v1/set-anchor', { description: `${ALICE_MARK} landing site` }), 'an anchor there');
  await step(
    alice.post('/api/v1/travel', { destination_time: '1969-07-20T21:00:00Z', location: `${ALICE_MARK} crater` }),
    'a move within it',
  );
  const events = (
    await step(
      alice.post('/api/v1/scan-events', { location: `${ALICE_MARK} crater`, time_range: ALL_TIME }),
      'its events',
    )
  ).body.events;
  await step(
    alice.post('/api/v1/manipulate-event', {
      event_id: events[0].event_id,
      action: `${ALICE_MARK} delay`,
      time: '1969-07-20T22:00:00Z',
    }),
    'a manipulation',
  );
  await step(alice.post('/v1/travels', { destination: own.anchor, items_transported: [found] }), 'home with the item');
  // An endpoint with a message that outlive her use of every operation, whose DELETE removes the first.
  const kept = (
    await step(
      alice.post('/v1/webhook-endpoints', { url: 'https://example.com/kept', event_types: ['event.updated'] }),
      'another webhook endpoint',
    )
  ).body.id;
  await step(alice.post(`/v1/webhook-endpoints/${kept}/test`), 'a test message to it');
  return own;
}
