import request from 'supertest';
import { startTestApp, type TestApp } from '../support/http/test-app';

// The spec's typical order of use (Family B), end to end, down to the rows it leaves in PostgreSQL.
describe('Family B typical order of use', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  // Its requests one after another, a sign-up's password hashing among them: past Jest's 5 s on two busy cores.
  it('anchors, travels, registers items, checks paradoxes and comes home carrying them', async () => {
    const me = await t.signUp();
    const api = () => request(t.app);

    const anchor = await api()
      .post('/v1/anchors')
      .set('Authorization', me.auth)
      .send({ description: 'Home, before leaving' });
    expect(anchor.status).toBe(201);
    expect(anchor.body).toEqual({
      id: expect.stringMatching(/^anc_[0-9a-f]{32}$/),
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      description: 'Home, before leaving',
      timeline_id: 'primary',
      location: 'home',
      created_at: expect.any(String),
    });

    const timeline = await api()
      .post('/v1/timelines')
      .set('Authorization', me.auth)
      .send({ name: 'Apollo 11', destination_time: '1969-07-20T20:17:40Z' });
    expect(timeline.status).toBe(201);
    expect(timeline.body).toMatchObject({
      id: expect.stringMatching(/^tml_[0-9a-f]{32}$/),
      name: 'Apollo 11',
      destination_time: '1969-07-20T20:17:40Z',
      status: 'open',
      window: '12 minutes',
    });
    expect(timeline.headers.location).toBe(`/timeline/${timeline.body.id}`);

    const outbound = await api()
      .post('/v1/travels')
      .set('Authorization', me.auth)
      .send({ destination: timeline.body.id });
    expect(outbound.status).toBe(201);
    expect(outbound.body).toMatchObject({
      id: expect.stringMatching(/^trv_/),
      destination: timeline.body.id,
      timeline_id: timeline.body.id,
      current_time: '1969-07-20T20:17:40Z',
      items_transported: [],
    });

    const rock = await api()
      .post('/v1/items')
      .set('Authorization', me.auth)
      .send({ description: 'Moon rock', location: 'Sea of Tranquility' });
    expect(rock.status).toBe(201);
    expect(rock.body).toMatchObject({
      id: expect.stringMatching(/^itm_/),
      timeline_id: timeline.body.id,
      item_description: 'Moon rock',
      location: 'Sea of Tranquility',
      carried_home_by: null,
    });

    const check = await api()
      .post('/v1/paradox-checks')
      .set('Authorization', me.auth)
      .send({
        timeline_id: timeline.body.id,
        proposed_changes: [{ item_id: rock.body.id }, { event: 'Eagle lands', time: '1969-07-20T20:17:40Z' }],
      });
    expect(check.status).toBe(200);
    expect(check.body).toEqual({
      timeline_id: timeline.body.id,
      is_stable: true,
      timeline_stability: 'Stable',
      reason_count: 0,
      reason_count_capped: false,
      reasons: [],
    });

    const home = await api()
      .post('/v1/travels')
      .set('Authorization', me.auth)
      .send({ destination: anchor.body.id, items_transported: [rock.body.id] });
    expect(home.status).toBe(201);
    expect(home.body).toMatchObject({
      destination: anchor.body.id,
      timeline_id: 'primary',
      current_time: anchor.body.timestamp,
      items_transported: [rock.body.id],
    });

    const after = await api().get(`/timeline/${timeline.body.id}`).set('Authorization', me.auth);
    expect(after.body.status).toBe('completed');

    // The records are in PostgreSQL, where Prisma Studio shows them.
    const [anchors, travels, items, traveller] = await Promise.all([
      t.prisma.anchor.count({ where: { accountId: me.id } }),
      t.prisma.travel.findMany({ where: { accountId: me.id }, orderBy: { departedAt: 'asc' } }),
      t.prisma.item.findMany({ where: { accountId: me.id } }),
      t.prisma.traveller.findUniqueOrThrow({ where: { accountId: me.id } }),
    ]);
    expect(anchors).toBe(1);
    expect(travels.map((travel) => travel.destination)).toEqual([timeline.body.id, anchor.body.id]);
    expect(items).toEqual([expect.objectContaining({ id: rock.body.id, carriedHomeBy: home.body.id })]);
    expect(traveller).toMatchObject({ timelineId: 'primary', journeyTravelId: null });
  }, 30_000);
});
