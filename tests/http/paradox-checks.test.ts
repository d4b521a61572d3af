import request from 'supertest';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';

describe('POST /v1/paradox-checks', () => {
  let t: TestApp;
  let me: TestAccount;
  let timelineId: string;
  beforeAll(async () => {
    t = await startTestApp();
    me = await t.signUp();
    timelineId = (
      await request(t.app)
        .post('/v1/timelines')
        .set('Authorization', me.auth)
        .send({ name: 'Hastings', destination_time: '1066-10-14T09:00:00Z' })
    ).body.id;
  });
  afterAll(() => t.close());

  const check = (body: object) => request(t.app).post('/v1/paradox-checks').set('Authorization', me.auth).send(body);

  it('calls a timeline with no proposed changes stable, whether the list is empty or omitted', async () => {
    for (const body of [{ timeline_id: timelineId, proposed_changes: [] }, { timeline_id: timelineId }]) {
      const response = await check(body);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        timeline_id: timelineId,
        is_stable: true,
        timeline_stability: 'Stable',
        reason_count: 0,
        reasons: [],
      });
    }
  });

  it('calls one event at two different times unstable, naming the event and both times', async () => {
    const response = await check({
      timeline_id: timelineId,
      proposed_changes: [
        { event: 'Harold is struck', time: '1066-10-14T16:00:00Z' },
        { event: ' harold IS struck ', time: '1066-10-14T17:30:00Z' },
      ],
    });
    expect(response.status).toBe(200);
    expect(response.body.is_stable).toBe(false);
    expect(response.body.reasons).toEqual([
      expect.objectContaining({
        code: 'event_at_two_times',
        event: 'Harold is struck',
        times: ['1066-10-14T16:00:00Z', '1066-10-14T17:30:00Z'],
      }),
    ]);
  });

  it('refuses an item that does not exist instead of calling it stable', async () => {
    const response = await check({ timeline_id: timelineId, proposed_changes: [{ item_id: 'itm_ghost' }] });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ code: 'unknown_items', item_ids: ['itm_ghost'] });
  });

  it('answers 404 for an unknown timeline', async () => {
    const response = await check({ timeline_id: 'tml_unknown', proposed_changes: [] });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('timeline_not_found');
  });
});
