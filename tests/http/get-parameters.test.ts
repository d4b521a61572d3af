import { ALL_TIME, asAccount, fieldsAtFault, type AccountClient } from '../support/http/as-account';
import { getOperations, retrieveTheLamp } from '../support/http/get-operations';
import { startTestApp, type TestApp } from '../support/http/test-app';

// The spec's examples send GET parameters in a JSON body; proxies and many clients drop GET bodies,
// so every GET of Families A and C takes them from the query string or the body (route.ts).
describe('GET parameters: query string or JSON body', () => {
  let t: TestApp;
  let a: AccountClient;
  let retrievalId: string;

  beforeAll(async () => {
    t = await startTestApp();
    a = asAccount(t, await t.signUp());
    retrievalId = await retrieveTheLamp(a);
  });
  afterAll(() => t.close());

  // For each GET: parameters that succeed, and one of them with a different value that also would.
  const operations = getOperations(() => retrievalId);

  describe.each(operations)('GET %s', (path, parameters, name, other) => {
    it('answers the same from the query string and from a JSON body', async () => {
      const fromQuery = await a.get(path, parameters());
      const fromBody = await a.getWithBody(path, parameters());
      expect(fromQuery.status).toBe(200);
      expect(fromBody.status).toBe(200);
      const { status: _q, ...queryAnswer } = fromQuery.body;
      const { status: _b, ...bodyAnswer } = fromBody.body;
      expect(bodyAnswer).toEqual(queryAnswer);
    });

    it('takes some parameters from each place', async () => {
      const { [name]: inQuery, ...rest } = parameters();
      const response = await a.get(path, { [name]: inQuery }).send(rest);
      expect(response.status).toBe(200);
    });

    it('accepts the same value given both ways', async () => {
      const response = await a.get(path, parameters()).send(parameters());
      expect(response.status).toBe(200);
    });

    it(`refuses ${name} given both ways with different values: 400 validation_failed naming ${name}`, async () => {
      const items = await t.prisma.item.count({ where: { accountId: a.account.id } });
      const response = await a.get(path, parameters()).send({ ...parameters(), [name]: other });

      expect(response.status).toBe(400);
      expect(response.body.code).toBe('validation_failed');
      expect(fieldsAtFault(response.body)).toEqual([name]);
      expect(await t.prisma.item.count({ where: { accountId: a.account.id } })).toBe(items);
    });

    it('refuses a missing parameter in either place with 400 naming it', async () => {
      const { [name]: _left, ...rest } = parameters();
      for (const response of [await a.get(path, rest), await a.getWithBody(path, rest)]) {
        expect(response.status).toBe(400);
        expect(fieldsAtFault(response.body)).toEqual([name]);
      }
    });
  });

  it('refuses a JSON body that is not an object', async () => {
    const response = await a.getWithBody('/v1/check-paradox', ['primary']);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
  });

  it('compares a number in the body with the same number in the query string as equal', async () => {
    const response = await a
      .get('/v1/monitor-events', { location: 'Baghdad', time_range: ALL_TIME, limit: 5 })
      .send({ limit: 5 });
    expect(response.status).toBe(200);
  });

  it('refuses different limits given both ways', async () => {
    const response = await a
      .get('/v1/monitor-events', { location: 'Baghdad', time_range: ALL_TIME, limit: 5 })
      .send({ limit: 6 });
    expect(response.status).toBe(400);
    expect(fieldsAtFault(response.body)).toEqual(['limit']);
  });
});
