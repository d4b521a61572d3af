import request from 'supertest';
import { MAX_WEBHOOK_ENDPOINTS } from '../../src/core/domain/webhook-endpoint';
import { aBrowser, type Browser, csrfOf, freshKeyOf } from '../support/http/browser';
import { startTestApp, type TestApp } from '../support/http/test-app';

const SECRET = /data-testid="new-webhook-secret">(whsec_[A-Za-z0-9+/]{43}=)</;
const ENDPOINT_ROW = /data-endpoint-id="(whk_[0-9a-f]{32})"/g;
const UNKNOWN_ID = `whk_${'0'.repeat(32)}`;

/** The secret a page shows once, right after an endpoint is added or its secret rolled. */
function secretOf(page: string): string {
  const match = SECRET.exec(page);
  if (!match?.[1]) throw new Error('no new webhook secret on the page');
  return match[1];
}

const endpointIdsOf = (page: string) => [...page.matchAll(ENDPOINT_ROW)].map((match) => match[1]);

/** The row of one endpoint on the page, from its opening to its end. */
const rowOf = (page: string, id: string) => new RegExp(`data-endpoint-id="${id}"[\\s\\S]*?</tr>`).exec(page)?.[0] ?? '';

// The dashboard's webhook section: each form's success, its refusals, and what it leaves stored.
describe('dashboard: webhook endpoints', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function signedIn() {
    const browser = aBrowser(t);
    const apiKey = freshKeyOf((await browser.signUp()).text);
    return { browser, apiKey };
  }

  /** The add form as a browser posts it: one `event_types` field per box ticked. */
  async function add(browser: Browser, fields: { url: string; types?: string[]; description?: string; csrf?: string }) {
    const csrf = fields.csrf ?? csrfOf((await browser.get('/dashboard/webhooks')).text);
    const form = new URLSearchParams({ csrf, url: fields.url, description: fields.description ?? '' });
    for (const type of fields.types ?? ['event.recorded']) form.append('event_types', type);
    return browser.agent.post('/dashboard/webhooks').type('form').send(form.toString());
  }

  async function addOne(browser: Browser, url = 'https://example.com/hooks') {
    const page = (await add(browser, { url })).text;
    const [id] = endpointIdsOf(page);
    if (!id) throw new Error('no endpoint listed');
    return { id, secret: secretOf(page) };
  }

  const stored = (id: string) => t.prisma.webhookEndpoint.findFirst({ where: { id } });
  const count = () => t.prisma.webhookEndpoint.count();

  it('redirects to sign-in, and back, when not signed in', async () => {
    const response = await request(t.app).get('/dashboard/webhooks');
    expect(response.status).toBe(303);
    expect(response.headers.location).toBe('/login?next=/dashboard/webhooks');
  });

  it('adds an endpoint: its secret once, then the row without it', async () => {
    const { browser } = await signedIn();
    const created = await add(browser, {
      url: 'https://Example.com:443/hooks',
      types: ['event.recorded', 'timeline.window_closed'],
      description: 'prod <script>',
    });
    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const secret = secretOf(created.text);
    const [id] = endpointIdsOf(created.text);
    expect(await stored(id ?? '')).toMatchObject({
      url: 'https://example.com/hooks',
      eventTypes: ['event.recorded', 'timeline.window_closed'],
      description: 'prod <script>',
      status: 'enabled',
      secret,
    });
    expect(created.text).toContain('prod &lt;script&gt;');
    expect(created.text).not.toContain('prod <script>');

    const later = (await browser.get('/dashboard/webhooks')).text;
    expect(later).not.toContain(secret);
    const row = rowOf(later, id ?? '');
    expect(row).toContain('https://example.com/hooks');
    expect(row).toContain('<code>timeline.window_closed</code>');
    expect(row).not.toContain('<code>event.updated</code>');
    expect(row).toMatch(/data-testid="endpoint-status">\s*enabled\s*</);
    expect(row).toContain('<time datetime=');
    expect(row).toContain(`href="/dashboard/webhooks/${id}/deliveries"`);
    expect(row).toContain(`action="/dashboard/webhooks/${id}/test"`);
  });

  it('takes an empty description as none', async () => {
    const { browser } = await signedIn();
    const { id } = await addOne(browser);
    expect((await stored(id))?.description).toBeNull();
  });

  it.each([
    ['an http url', { url: 'http://example.com/hooks' }, 'url must be an https URL'],
    ['a url that is not one', { url: 'example.com' }, 'must be an absolute URL'],
    [
      'no event type ticked',
      { url: 'https://example.com/hooks', types: [] },
      'event_types must name at least one event type',
    ],
    ['an unknown event type', { url: 'https://example.com/hooks', types: ['event.deleted'] }, 'must name only'],
    ['a type twice', { url: 'https://example.com/hooks', types: ['event.updated', 'event.updated'] }, 'twice'],
    ['a blank description', { url: 'https://example.com/hooks', description: '   ' }, 'white space'],
    ['a loopback address', { url: 'https://127.0.0.1/hooks' }, 'an address webhooks may not reach'],
    ['a name leading to loopback', { url: 'https://loopback.example.com/hooks' }, 'may not reach'],
    ['a name that resolves to nothing', { url: 'https://nowhere.example.com/hooks' }, 'resolves to no address'],
  ])('refuses %s with 400 on the page, keeping what was typed and storing nothing', async (_label, fields, text) => {
    const { browser } = await signedIn();
    const before = await count();
    const refused = await add(browser, fields);
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/class="notice error" role="alert">[^<]*/);
    expect(refused.text).toContain(text);
    expect(refused.text).toContain(`value="${fields.url}"`);
    expect(refused.text).not.toMatch(SECRET);
    expect(await count()).toBe(before);
  });

  it('answers control characters, a field sent twice and impossible ids with pages, never a 500', async () => {
    const { browser } = await signedIn();
    const before = await count();
    const withNul = await add(browser, { url: 'https://example.com/a\u0000b' });
    expect(withNul.status).toBe(400);
    expect(withNul.text).toContain('url must be one value, without control characters.');
    const descriptionWithNul = await add(browser, { url: 'https://example.com/hooks', description: 'a\u0000b' });
    expect(descriptionWithNul.status).toBe(400);
    expect(descriptionWithNul.text).toContain('description must be one value');
    expect((await add(browser, { url: 'https://example.com/hooks', types: ['event.recorded\u0000'] })).status).toBe(
      400,
    );
    const csrf = csrfOf((await browser.get('/dashboard/webhooks')).text);
    const twice = new URLSearchParams({ csrf, url: 'https://example.com/a', event_types: 'event.recorded' });
    twice.append('url', 'https://example.com/b');
    const sentTwice = await browser.agent.post('/dashboard/webhooks').type('form').send(twice.toString());
    expect(sentTwice.status).toBe(400);
    expect(sentTwice.text).toContain('url must be one value');
    expect(await count()).toBe(before);
    for (const action of ['disable', 'enable', 'roll-secret', 'delete']) {
      expect((await browser.submit(`/dashboard/webhooks/%00/${action}`)).status).toBe(404);
      expect((await browser.submit(`/dashboard/webhooks/${'w'.repeat(300)}/${action}`)).status).toBe(404);
    }
  });

  it('takes a description of the longest length in letters that take 9 bytes a piece once encoded', async () => {
    const { browser } = await signedIn();
    const description = '時'.repeat(1_000);
    const created = await add(browser, { url: `https://example.com/${'a'.repeat(2_000)}`, description });
    expect(created.status).toBe(201);
    const [id] = endpointIdsOf(created.text);
    expect((await stored(id ?? ''))?.description).toBe(description);
  });

  it(`keeps at most ${MAX_WEBHOOK_ENDPOINTS} endpoints, counting those the API made`, async () => {
    const { browser, apiKey } = await signedIn();
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS - 1; i += 1) {
      const made = await request(t.app)
        .post('/v1/webhook-endpoints')
        .set('Authorization', `Bearer ${apiKey}`)
        .send({ url: `https://example.com/${i}`, event_types: ['event.recorded'] });
      expect(made.status).toBe(201);
    }
    expect((await add(browser, { url: 'https://example.com/last' })).status).toBe(201);
    const before = await count();
    const refused = await add(browser, { url: 'https://example.com/one-more' });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain(`at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints`);
    expect(endpointIdsOf(refused.text)).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
    expect(await count()).toBe(before);
  });

  it('disables and enables an endpoint, showing why it is disabled', async () => {
    const { browser } = await signedIn();
    const { id } = await addOne(browser);

    const disabled = await browser.submit(`/dashboard/webhooks/${id}/disable`);
    expect(disabled.status).toBe(200);
    expect(rowOf(disabled.text, id)).toMatch(/data-testid="endpoint-status">\s*disabled by you\s*</);
    expect(rowOf(disabled.text, id)).toContain(`/dashboard/webhooks/${id}/enable`);
    expect(await stored(id)).toMatchObject({ status: 'disabled', disabledReason: 'by_owner' });

    const enabled = await browser.submit(`/dashboard/webhooks/${id}/enable`);
    expect(enabled.status).toBe(200);
    expect(rowOf(enabled.text, id)).toMatch(/data-testid="endpoint-status">\s*enabled\s*</);
    expect(await stored(id)).toMatchObject({ status: 'enabled', disabledReason: null });
  });

  it('names the reason the service disabled an endpoint for', async () => {
    const { browser } = await signedIn();
    const { id } = await addOne(browser);
    await t.prisma.webhookEndpoint.updateMany({ where: { id }, data: { status: 'disabled', disabledReason: 'gone' } });
    const page = (await browser.get('/dashboard/webhooks')).text;
    expect(rowOf(page, id)).toContain('disabled: it answered 410 Gone');
  });

  it('rolls the secret: the new one shown once, the old one kept signing beside it', async () => {
    const { browser } = await signedIn();
    const { id, secret: first } = await addOne(browser);
    const rolled = await browser.submit(`/dashboard/webhooks/${id}/roll-secret`);
    expect(rolled.status).toBe(200);
    const second = secretOf(rolled.text);
    expect(second).not.toBe(first);
    expect(rolled.text).toContain('The new signing secret of https://example.com/hooks:');
    expect(await stored(id)).toMatchObject({ secret: second, previousSecret: first });
    expect((await browser.get('/dashboard/webhooks')).text).not.toContain(second);
  });

  it('deletes an endpoint behind a confirmation', async () => {
    const { browser } = await signedIn();
    const { id } = await addOne(browser);
    const row = rowOf((await browser.get('/dashboard/webhooks')).text, id);
    // The delete button sits in a closed <details>: a first click only opens the confirmation.
    expect(row).toMatch(
      new RegExp(`<details class="confirm">\\s*<summary>Delete…</summary>[\\s\\S]*/dashboard/webhooks/${id}/delete`),
    );

    const deleted = await browser.submit(`/dashboard/webhooks/${id}/delete`);
    expect(deleted.status).toBe(200);
    expect(deleted.text).toContain('https://example.com/hooks is deleted');
    expect(endpointIdsOf(deleted.text)).not.toContain(id);
    expect(await stored(id)).toBeNull();

    const again = await browser.submit(`/dashboard/webhooks/${id}/delete`);
    expect(again.status).toBe(404);
    expect(again.text).toContain(`No webhook endpoint &#39;${id}&#39;`);
  });

  it.each(['disable', 'enable', 'roll-secret', 'delete'])(
    "answers %s of an unknown endpoint, or another account's, 404 alike, changing nothing",
    async (action) => {
      const { browser: owner } = await signedIn();
      const { id } = await addOne(owner);
      const before = await stored(id);
      const { browser: intruder } = await signedIn();

      const unknown = await intruder.submit(`/dashboard/webhooks/${UNKNOWN_ID}/${action}`);
      const foreign = await intruder.submit(`/dashboard/webhooks/${id}/${action}`);
      expect(unknown.status).toBe(404);
      expect(foreign.status).toBe(404);
      expect(foreign.text).toContain(`No webhook endpoint &#39;${id}&#39; exists for this account.`);
      expect(foreign.text).not.toContain('https://example.com/hooks');
      expect(foreign.text).not.toMatch(SECRET);
      expect(await stored(id)).toEqual(before);
    },
  );

  describe('deliveries, resend and test', () => {
    /** A message of the endpoint and its attempts, as deliveries record them: 500, then 200. */
    async function delivered(accountId: string, endpointId: string, messageId: string, answers: string[]) {
      const at = Date.parse('2026-11-29T08:00:00Z');
      await t.prisma.webhookMessage.create({
        data: {
          accountId,
          id: messageId,
          endpointId,
          eventType: 'event.recorded',
          subject: {},
          createdAt: new Date(at),
          state: 'delivered',
          attempts: answers.length,
          tries: {
            create: answers.map((answer, index) => ({
              attempt: index + 1,
              endpointId,
              attemptedAt: new Date(at + index * 5_000),
              status: index === answers.length - 1 ? 200 : 500,
              durationMs: 30 + index,
              answer,
              nextAttemptAt: index === answers.length - 1 ? null : new Date(at + (index + 1) * 5_000),
            })),
          },
        },
      });
    }
    const accountOf = async (id: string) => (await stored(id))?.accountId ?? '';
    const messageRows = (page: string, messageId: string) =>
      [...page.matchAll(new RegExp(`data-message-id="${messageId}"[\\s\\S]*?</tr>`, 'g'))].map((m) => m[0]);

    it('shows the last attempts newest first, with their answers, and one resend per message', async () => {
      const { browser } = await signedIn();
      const { id } = await addOne(browser);
      const messageId = `msg_${'a'.repeat(32)}`;
      await delivered(await accountOf(id), id, messageId, ['<b>down</b>', 'thanks']);

      const page = await browser.get(`/dashboard/webhooks/${id}/deliveries`);

      expect(page.status).toBe(200);
      const [second, first] = messageRows(page.text, messageId);
      expect(second).toContain('data-attempt="2"');
      expect(second).toMatch(/<strong>200<\/strong>/);
      expect(second).toContain('thanks');
      expect(second).toContain(`/dashboard/webhooks/${id}/deliveries/${messageId}/resend`);
      expect(first).toContain('data-attempt="1"');
      expect(first).toMatch(/<strong>500<\/strong>/);
      expect(first).toContain('&lt;b&gt;down&lt;/b&gt;');
      expect(first).not.toContain('<b>down</b>');
      expect(first).not.toContain('/resend');
      expect(page.text).toContain(`action="/dashboard/webhooks/${id}/test"`);
    });

    it('pages through older attempts, 20 a page, by the link each page carries', async () => {
      const { browser } = await signedIn();
      const { id } = await addOne(browser);
      const messageId = `msg_${'c'.repeat(32)}`;
      await delivered(
        await accountOf(id),
        id,
        messageId,
        Array.from({ length: 25 }, (_, n) => `answer ${n + 1}`),
      );
      const attemptsOn = (page: string) => [...page.matchAll(/data-attempt="(\d+)"/g)].map((match) => Number(match[1]));
      const hrefOf = (page: string, testId: string) =>
        new RegExp(`<a href="([^"]*)" data-testid="${testId}"`).exec(page)?.[1]?.replaceAll('&amp;', '&');

      const newest = await browser.get(`/dashboard/webhooks/${id}/deliveries`);
      expect(attemptsOn(newest.text)).toEqual(Array.from({ length: 20 }, (_, n) => 25 - n));
      expect(newest.text).not.toContain('data-testid="newest-deliveries"');
      const older = hrefOf(newest.text, 'older-deliveries');
      expect(older).toMatch(new RegExp(`^/dashboard/webhooks/${id}/deliveries\\?after=[A-Za-z0-9_-]+$`));

      const oldest = await browser.get(older ?? '');
      expect(oldest.status).toBe(200);
      expect(attemptsOn(oldest.text)).toEqual([5, 4, 3, 2, 1]);
      expect(oldest.text).not.toContain('data-testid="older-deliveries"');
      expect(hrefOf(oldest.text, 'newest-deliveries')).toBe(`/dashboard/webhooks/${id}/deliveries`);
    });

    it('answers a page it never linked to 400, with the newest attempts and why', async () => {
      const { browser } = await signedIn();
      const { id } = await addOne(browser);
      await delivered(await accountOf(id), id, `msg_${'d'.repeat(32)}`, ['thanks']);

      for (const after of ['nonsense', Buffer.from('12:msg_x/1').toString('base64url'), '']) {
        const page = await browser.get(`/dashboard/webhooks/${id}/deliveries?after=${after}`);
        expect(page.status).toBe(400);
        expect(page.text).toContain('That page of deliveries is none this page links to');
        expect(page.text).toContain('data-attempt="1"');
      }
      const twice = await browser.get(`/dashboard/webhooks/${id}/deliveries?after=a&after=b`);
      expect(twice.status).toBe(400);
    });

    it("resends a message through the API's use case: pending for one more attempt, its last", async () => {
      const { browser } = await signedIn();
      const { id } = await addOne(browser);
      const messageId = `msg_${'b'.repeat(32)}`;
      await delivered(await accountOf(id), id, messageId, ['ok']);

      const resent = await browser.submit(`/dashboard/webhooks/${id}/deliveries/${messageId}/resend`);

      // Answered by a redirect: reloading the page to see the attempt sends nothing again.
      expect(resent.status).toBe(303);
      expect(resent.headers.location).toBe(`/dashboard/webhooks/${id}/deliveries?queued=${messageId}`);
      const page = await browser.get(resent.headers.location ?? '');
      expect(page.status).toBe(200);
      expect(page.text).toContain(`${messageId} is queued, to be sent at once`);
      expect(await t.prisma.webhookMessage.findFirst({ where: { id: messageId } })).toMatchObject({
        state: 'pending',
        attempts: 1,
        lastAttempt: 2,
      });
    });

    it('sends a test: a webhook.test message of the endpoint, whatever it subscribes to', async () => {
      const { browser } = await signedIn();
      const { id } = await addOne(browser);

      const tested = await browser.submit(`/dashboard/webhooks/${id}/test`);

      expect(tested.status).toBe(303);
      const [message] = await t.prisma.webhookMessage.findMany({ where: { endpointId: id } });
      expect(message).toMatchObject({ eventType: 'webhook.test', state: 'pending', attempts: 0 });
      expect(tested.headers.location).toBe(`/dashboard/webhooks/${id}/deliveries?queued=${message?.id}`);
      const page = (await browser.get(tested.headers.location ?? '')).text;
      expect(page).toContain(`${message?.id} is queued`);
      expect(page).toContain('No deliveries yet.');
      expect(await t.prisma.webhookMessage.count({ where: { endpointId: id } })).toBe(1);
    });

    it('refuses a test or a resend of a disabled endpoint, 409 on its page, queueing nothing', async () => {
      const { browser } = await signedIn();
      const { id } = await addOne(browser);
      const messageId = `msg_${'c'.repeat(32)}`;
      await delivered(await accountOf(id), id, messageId, ['ok']);
      await browser.submit(`/dashboard/webhooks/${id}/disable`);

      for (const path of [`${id}/test`, `${id}/deliveries/${messageId}/resend`]) {
        const refused = await browser.submit(`/dashboard/webhooks/${path}`);
        expect(refused.status).toBe(409);
        expect(refused.text).toContain('is disabled: enable it first');
      }
      const page = (await browser.get(`/dashboard/webhooks/${id}/deliveries`)).text;
      expect(page).not.toContain('/resend');
      expect(page).not.toContain(`action="/dashboard/webhooks/${id}/test"`);
      expect(await t.prisma.webhookMessage.findMany({ where: { endpointId: id } })).toMatchObject([
        { id: messageId, state: 'delivered', lastAttempt: null },
      ]);
    });

    it("answers another account's endpoint or message, an unknown or impossible one, 404, alike", async () => {
      const { browser: owner } = await signedIn();
      const theirs = await addOne(owner);
      const theirMessage = `msg_${'d'.repeat(32)}`;
      await delivered(await accountOf(theirs.id), theirs.id, theirMessage, ['secret answer']);
      const { browser: intruder } = await signedIn();
      const mine = await addOne(intruder);
      const before = await t.prisma.webhookMessage.findMany({ where: { endpointId: theirs.id } });

      for (const id of [theirs.id, UNKNOWN_ID, '%00', 'w'.repeat(300)]) {
        expect((await intruder.get(`/dashboard/webhooks/${id}/deliveries`)).status).toBe(404);
        expect((await intruder.submit(`/dashboard/webhooks/${id}/test`)).status).toBe(404);
        expect((await intruder.submit(`/dashboard/webhooks/${id}/deliveries/${theirMessage}/resend`)).status).toBe(404);
      }
      for (const messageId of [theirMessage, `msg_${'0'.repeat(32)}`, '%00', 'm'.repeat(300)]) {
        const refused = await intruder.submit(`/dashboard/webhooks/${mine.id}/deliveries/${messageId}/resend`);
        expect(refused.status).toBe(404);
        expect(refused.text).not.toContain('secret answer');
      }
      const foreign = (await intruder.get(`/dashboard/webhooks/${theirs.id}/deliveries`)).text;
      expect(foreign).not.toContain('secret answer');
      expect(await t.prisma.webhookMessage.findMany({ where: { endpointId: theirs.id } })).toEqual(before);
      expect(await t.prisma.webhookMessage.count({ where: { endpointId: mine.id } })).toBe(0);
    });

    it('redirects to sign-in when not signed in', async () => {
      const response = await request(t.app).get(`/dashboard/webhooks/${UNKNOWN_ID}/deliveries`);
      expect(response.status).toBe(303);
    });
  });

  describe('cross-site request forgery', () => {
    it('refuses the add form without the session token, with a wrong one or another origin', async () => {
      const { browser } = await signedIn();
      const { browser: other } = await signedIn();
      const before = await count();
      const url = 'https://example.com/forged';
      const csrf = csrfOf((await browser.get('/dashboard/webhooks')).text);
      const otherCsrf = csrfOf((await other.get('/dashboard/webhooks')).text);

      expect((await browser.post('/dashboard/webhooks', { url, event_types: 'event.recorded' })).status).toBe(403);
      expect((await add(browser, { url, csrf: 'wrong' })).status).toBe(403);
      expect((await add(browser, { url, csrf: otherCsrf })).status).toBe(403);
      const crossOrigin = await browser
        .post('/dashboard/webhooks', { csrf, url, event_types: 'event.recorded' })
        .set('Origin', 'https://evil.example');
      expect(crossOrigin.status).toBe(403);
      expect(await count()).toBe(before);
      expect((await add(browser, { url, csrf })).status).toBe(201);
    });

    it.each(['disable', 'roll-secret', 'delete', 'test'])(
      'refuses %s with a forged token, changing nothing',
      async (action) => {
        const { browser } = await signedIn();
        const { id } = await addOne(browser);
        const before = await stored(id);
        const { browser: other } = await signedIn();
        const otherCsrf = csrfOf((await other.get('/dashboard/webhooks')).text);

        expect((await browser.post(`/dashboard/webhooks/${id}/${action}`, {})).status).toBe(403);
        expect((await browser.post(`/dashboard/webhooks/${id}/${action}`, { csrf: otherCsrf })).status).toBe(403);
        const csrf = csrfOf((await browser.get('/dashboard/webhooks')).text);
        const crossSite = await browser
          .post(`/dashboard/webhooks/${id}/${action}`, { csrf })
          .set('Sec-Fetch-Site', 'cross-site');
        expect(crossSite.status).toBe(403);
        expect(await stored(id)).toEqual(before);
        expect((await browser.post(`/dashboard/webhooks/${id}/${action}`, { csrf })).status).toBe(
          action === 'test' ? 303 : 200,
        );
      },
    );
  });
});
