import fc from 'fast-check';
import request from 'supertest';
import { asAccount, type AccountClient } from '../support/http/as-account';
import { OpenApiContract } from '../support/http/openapi-contract';
import { startTestApp, type TestApp } from '../support/http/test-app';

/**
 * A proposed change of POST /v1/paradox-checks, validated against the served document and sent to
 * the server: whatever one accepts, the other accepts too. The server "accepts" when validation
 * lets the body through, even if the check then answers `unknown_items`.
 */
describe('a proposed change: the document and the server accept the same bodies', () => {
  let t: TestApp;
  let me: AccountClient;
  let contract: OpenApiContract;
  let item: string;
  const time = '1969-07-20T20:17:40Z';

  beforeAll(async () => {
    t = await startTestApp();
    me = asAccount(t, await t.signUp());
    contract = new OpenApiContract((await request(t.app).get('/openapi.json')).body);
    item = (await me.post('/v1/items', { description: 'Moon rock' })).body.id;
  });
  afterAll(() => t.close());

  async function verdicts(change: unknown): Promise<{ document: boolean; server: boolean }> {
    const schema =
      contract.operation('checkParadoxes').operation.requestBody?.content['application/json']?.schema ?? {};
    const body = { timeline_id: 'primary', proposed_changes: [change] };
    const response = await me.post('/v1/paradox-checks', body);
    expect(response.status).not.toBeGreaterThanOrEqual(500);
    return {
      document: contract.violations(schema, body).length === 0,
      server: !(response.status === 400 && response.body.code === 'validation_failed'),
    };
  }

  const accepted: Array<[string, (item: string) => unknown]> = [
    ['an event at a time', () => ({ event: 'Moon landing', time })],
    [
      'an event at a time with an offset and fractions',
      () => ({ event: 'Moon landing', time: '1969-07-20T22:17:40.5+02:00' }),
    ],
    ['a registered item alone', (id) => ({ item_id: id })],
    ['an item nobody registered (then unknown_items)', () => ({ item_id: 'itm_00000000000000000000000000000000' })],
  ];
  const refused: Array<[string, (item: string) => unknown]> = [
    ['nothing', () => ({})],
    ['an event without a time', () => ({ event: 'Moon landing' })],
    ['a time without an event', () => ({ time })],
    ['both forms at once', (id) => ({ event: 'Moon landing', time, item_id: id })],
    ['an item with an event', (id) => ({ item_id: id, event: 'Moon landing' })],
    ['an item with a time', (id) => ({ item_id: id, time })],
    ['an empty event', () => ({ event: '', time })],
    ['an event of white space only', () => ({ event: ' \t\u00a0', time })],
    ['an empty item id', () => ({ item_id: '' })],
    ['a null item id', () => ({ item_id: null })],
    ['a null event beside an item', (id) => ({ item_id: id, event: null })],
    ['a time that is not one', () => ({ event: 'Moon landing', time: 'yesterday' })],
    ['February 30th', () => ({ event: 'Moon landing', time: '1969-02-30T00:00:00Z' })],
    ['an event that is a number', () => ({ event: 42, time })],
    ['an item id too long', () => ({ item_id: `itm_${'0'.repeat(97)}` })],
    ['an unknown field beside an event', () => ({ event: 'Moon landing', time, colour: 'red' })],
    ['an unknown field alone', () => ({ colour: 'red' })],
    ['a string', () => 'Moon landing'],
    ['null', () => null],
  ];

  it.each(accepted)('accepts %s, both', async (_name, change) => {
    expect(await verdicts(change(item))).toEqual({ document: true, server: true });
  });

  it.each(refused)('refuses %s, both', async (_name, change) => {
    expect(await verdicts(change(item))).toEqual({ document: false, server: false });
  });

  it('agrees on generated changes of every mix of fields', async () => {
    const value = fc.constantFrom<unknown>(
      'Moon landing',
      '',
      '   ',
      time,
      'yesterday',
      item,
      'itm_00000000000000000000000000000000',
      null,
      7,
      true,
      ['x'],
      {},
    );
    const change = fc.dictionary(fc.constantFrom('event', 'time', 'item_id', 'colour'), value, { maxKeys: 4 });
    await fc.assert(
      fc.asyncProperty(change, async (generated) => {
        const { document, server } = await verdicts(generated);
        expect({ change: generated, document }).toEqual({ change: generated, document: server });
      }),
      { numRuns: 150 },
    );
  }, 60_000);
});
