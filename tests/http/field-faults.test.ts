import request from 'supertest';
import { buildContainer } from '../../src/composition/container';
import { allRoutes } from '../../src/interfaces/http/app';
import { fieldFaults, type FieldFault } from '../support/http/field-rules';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';
import { accountState } from '../support/isolation/account-state';

// Each field reports its first real fault: required (missing or null), then its type, then blank
// text, then its length. Cases come from the route table's input classes, so every field of every
// family and of the account is covered, each with the example of its operation as the rest.
describe('the first fault of each field, in every family', () => {
  let t: TestApp;
  let account: TestAccount;
  let faults: FieldFault[];

  beforeAll(async () => {
    t = await startTestApp();
    account = await t.signUp();
    faults = fieldFaults(allRoutes(buildContainer({ prisma: t.prisma, sql: t.sql, wallClock: t.clock })));
  });
  afterAll(() => t.close());

  it('covers the fields users met the wrong message on, in all three families, the account, webhooks, keys', () => {
    const covered = new Set(faults.map((fault) => `${fault.route.path} ${fault.field}`));
    for (const field of [
      '/v1/anchors description',
      '/v1/travel location',
      '/v1/timelines name',
      '/v1/travels destination',
      '/v1/paradox-checks proposed_changes',
      '/api/v1/manipulate-event action',
      '/v1/retrieve-item item_description',
      '/v1/accounts email',
      '/v1/accounts password',
      '/v1/webhook-endpoints url',
      '/v1/webhook-endpoints event_types',
      '/v1/api-keys name',
    ]) {
      expect(covered).toContain(field);
    }
    expect(new Set(faults.map((fault) => fault.route.family))).toEqual(
      new Set(['A', 'B', 'C', 'accounts', 'webhooks', 'api-keys']),
    );
  });

  it('answers each fault 400 validation_failed naming only its field, its first rule broken; no change', async () => {
    const before = await accountState(t.prisma, account.id, ['last_used_at']);
    const accounts = await t.prisma.account.count();
    const wrong: string[] = [];
    for (const fault of faults) {
      const call = request(t.app)[fault.route.method](fault.route.path);
      const response = await (fault.route.scope !== null ? call.set('Authorization', account.auth) : call).send(
        fault.input,
      );
      const expected = {
        status: 400,
        code: 'validation_failed',
        errors: [{ field: fault.field, message: fault.message }],
      };
      const actual = { status: response.status, code: response.body.code, errors: response.body.errors };
      if (JSON.stringify(actual) !== JSON.stringify(expected)) wrong.push(`${fault.label}: ${JSON.stringify(actual)}`);
    }
    expect(wrong).toEqual([]);
    expect(faults.length).toBeGreaterThan(100);
    expect(await accountState(t.prisma, account.id, ['last_used_at'])).toEqual(before);
    expect(await t.prisma.account.count()).toBe(accounts);
  });

  it.each([
    ['a missing event', { time: '1969-07-20T21:00:00Z' }, 'proposed_changes[0].event', 'event is required'],
    ['a null time', { event: 'Landing', time: null }, 'proposed_changes[0].time', 'time is required'],
    [
      'a blank event',
      { event: ' ', time: '1969-07-20T21:00:00Z' },
      'proposed_changes[0].event',
      'event must not be empty or only white space',
    ],
    ['a numeric item_id', { item_id: 7 }, 'proposed_changes[0].item_id', 'item_id must be a string'],
    [
      'an event too long',
      { event: 'x'.repeat(1001), time: '1969-07-20T21:00:00Z' },
      'proposed_changes[0].event',
      'event must be shorter than or equal to 1000 characters',
    ],
    ['a null entry', null, 'proposed_changes[0]', 'proposed_changes[0] must be an object'],
    ['a text entry', 'landing', 'proposed_changes[0]', 'proposed_changes[0] must be an object'],
  ])('reports %s in a proposed change by its path', async (_label, change, field, message) => {
    const response = await request(t.app)
      .post('/v1/paradox-checks')
      .set('Authorization', account.auth)
      .send({ timeline_id: 'primary', proposed_changes: [change] });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ field, message }]);
  });

  it.each([
    ['a number', [5], 'each value in items_transported must be a string'],
    [
      'an id too long',
      ['x'.repeat(101)],
      'each value in items_transported must be shorter than or equal to 100 characters',
    ],
  ])('reports an element of items_transported that is %s', async (_label, items, message) => {
    const response = await request(t.app)
      .post('/v1/travels')
      .set('Authorization', account.auth)
      .send({ destination: 'primary', items_transported: items });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ field: 'items_transported', message }]);
  });

  it('reports a missing GET parameter given in the query string as required', async () => {
    const response = await request(t.app)
      .get('/v1/monitor-events')
      .set('Authorization', account.auth)
      .query({ time_range: '2024-01-01T00:00:00Z/2024-01-02T00:00:00Z' });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ field: 'location', message: 'location is required' }]);
  });

  it('reports a blank GET parameter given in the query string', async () => {
    const response = await request(t.app)
      .get('/v1/monitor-events')
      .set('Authorization', account.auth)
      .query({ location: '  ', time_range: '2024-01-01T00:00:00Z/2024-01-02T00:00:00Z' });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      { field: 'location', message: 'location must not be empty or only white space' },
    ]);
  });

  it('still stores text with white space around other characters as given', async () => {
    const response = await request(t.app)
      .post('/v1/anchors')
      .set('Authorization', account.auth)
      .send({ description: '  Home  ' });
    expect(response.status).toBe(201);
    expect(response.body.description).toBe('  Home  ');
  });
});
