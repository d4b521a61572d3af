import request from 'supertest';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';

// Another account's identifier must answer exactly as an unknown one: same status, same code.
describe('isolation between accounts', () => {
  let t: TestApp;
  let alice: TestAccount;
  let mallory: TestAccount;
  let aliceTimeline: string;
  let aliceAnchor: string;
  let aliceItem: string;

  beforeAll(async () => {
    t = await startTestApp();
    [alice, mallory] = await Promise.all([t.signUp(), t.signUp()]);
    const as = (path: string, body: object) => request(t.app).post(path).set('Authorization', alice.auth).send(body);
    aliceTimeline = (await as('/v1/timelines', { name: 'Private', destination_time: '1950-01-01T00:00:00Z' })).body.id;
    aliceAnchor = (await as('/v1/anchors', { description: 'Alice home' })).body.id;
    aliceItem = (await as('/v1/items', { description: 'Alice diary' })).body.id;
  });
  afterAll(() => t.close());

  const asMallory = () => request(t.app);

  it("does not show Alice's timeline to Mallory, by id or in the list", async () => {
    const theirs = await asMallory().get(`/timeline/${aliceTimeline}`).set('Authorization', mallory.auth);
    const unknown = await asMallory().get('/timeline/tml_ffffffffffffffffffffffffffffffff').set('Authorization', mallory.auth);
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe(unknown.body.code);

    const list = await asMallory().get('/timelines').set('Authorization', mallory.auth);
    expect(list.body.timelines.map((timeline: { id: string }) => timeline.id)).toEqual(['primary']);
  });

  it("does not let Mallory travel to Alice's timeline or anchor", async () => {
    for (const destination of [aliceTimeline, aliceAnchor]) {
      const response = await asMallory().post('/v1/travels').set('Authorization', mallory.auth).send({ destination });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('destination_not_found');
    }
  });

  it("does not let Mallory carry or check Alice's items", async () => {
    const carry = await asMallory()
      .post('/v1/travels')
      .set('Authorization', mallory.auth)
      .send({ destination: 'primary', items_transported: [aliceItem] });
    expect(carry.status).toBe(422);
    expect(carry.body.item_ids).toEqual([aliceItem]);

    const check = await asMallory()
      .post('/v1/paradox-checks')
      .set('Authorization', mallory.auth)
      .send({ timeline_id: 'primary', proposed_changes: [{ item_id: aliceItem }] });
    expect(check.status).toBe(422);
    expect(check.body.item_ids).toEqual([aliceItem]);

    const checkTheirTimeline = await asMallory()
      .post('/v1/paradox-checks')
      .set('Authorization', mallory.auth)
      .send({ timeline_id: aliceTimeline, proposed_changes: [] });
    expect(checkTheirTimeline.status).toBe(404);
  });

  it("leaves Alice's state untouched by Mallory's attempts", async () => {
    const item = await t.prisma.item.findUniqueOrThrow({ where: { accountId_id: { accountId: alice.id, id: aliceItem } } });
    expect(item.carriedHomeBy).toBeNull();
    expect(await t.prisma.travel.count({ where: { accountId: mallory.id } })).toBe(0);
  });
});
