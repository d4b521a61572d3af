import request from 'supertest';
import { aBrowser, freshKeyOf } from '../support/http/browser';
import { startTestApp, type TestApp } from '../support/http/test-app';

describe('dashboard: API keys', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const anchorWith = (key: string) =>
    request(t.app).post('/v1/anchors').set('Authorization', `Bearer ${key}`).send({ description: 'Home' });

  async function signedIn() {
    const browser = aBrowser(t);
    const first = freshKeyOf((await browser.signUp()).text);
    return { browser, first };
  }

  it('creates a named key: the whole key once, then only its prefix', async () => {
    const { browser } = await signedIn();
    const created = await browser.submit('/dashboard/keys', { name: 'deploy <script>' });
    expect(created.status).toBe(201);
    const key = freshKeyOf(created.text);
    expect(created.text).toContain('deploy &lt;script&gt;'); // user data is escaped
    expect(created.text).not.toContain('deploy <script>');
    expect((await anchorWith(key)).status).toBe(201);

    const later = await browser.get('/dashboard');
    expect(later.text).not.toContain(key);
    expect(later.text).toContain(`<code>${key.slice(0, 12)}…</code>`);
    const stored = await t.prisma.apiKey.findFirstOrThrow({ where: { prefix: key.slice(0, 12) } });
    expect(stored.name).toBe('deploy <script>');
    expect(JSON.stringify(stored)).not.toContain(key);
  });

  it('refuses a key name of white space alone with 400, creating no key; an empty name is an unnamed key', async () => {
    const { browser } = await signedIn();
    const keys = await t.prisma.apiKey.count();
    const blank = await browser.submit('/dashboard/keys', { name: '   ' });
    expect(blank.status).toBe(400);
    expect(blank.text).toContain('A key name cannot be only white space');
    expect(await t.prisma.apiKey.count()).toBe(keys);

    const unnamed = await browser.submit('/dashboard/keys', { name: '' });
    expect(unnamed.status).toBe(201);
    expect(
      (await t.prisma.apiKey.findFirstOrThrow({ where: { prefix: freshKeyOf(unnamed.text).slice(0, 12) } })).name,
    ).toBeNull();
  });

  it('rolls a key: the old one is refused at once, the new one works and keeps the name', async () => {
    const { browser } = await signedIn();
    const old = freshKeyOf((await browser.submit('/dashboard/keys', { name: 'ci' })).text);
    const oldId = (await t.prisma.apiKey.findFirstOrThrow({ where: { prefix: old.slice(0, 12) } })).id;

    const rolled = await browser.submit(`/dashboard/keys/${oldId}/roll`);
    expect(rolled.status).toBe(200);
    const replacement = freshKeyOf(rolled.text);
    expect(replacement).not.toBe(old);
    expect((await anchorWith(old)).status).toBe(401);
    expect((await anchorWith(replacement)).status).toBe(201);
    expect((await t.prisma.apiKey.findFirstOrThrow({ where: { prefix: replacement.slice(0, 12) } })).name).toBe('ci');

    const again = await browser.submit(`/dashboard/keys/${oldId}/roll`);
    expect(again.status).toBe(404);
    expect(again.text).toContain('No active API key');
  });

  it('revokes a key: refused at once and no longer listed', async () => {
    const { browser, first } = await signedIn();
    expect((await anchorWith(first)).status).toBe(201);
    const id = (await t.prisma.apiKey.findFirstOrThrow({ where: { prefix: first.slice(0, 12) } })).id;

    const revoked = await browser.submit(`/dashboard/keys/${id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.text).toContain('is revoked');
    expect(revoked.text).not.toContain(`data-key-id="${id}"`);
    expect((await anchorWith(first)).status).toBe(401);
  });

  it("cannot touch another account's key", async () => {
    const { first } = await signedIn();
    const id = (await t.prisma.apiKey.findFirstOrThrow({ where: { prefix: first.slice(0, 12) } })).id;
    const { browser: intruder } = await signedIn();
    expect((await intruder.submit(`/dashboard/keys/${id}/revoke`)).status).toBe(404);
    expect((await intruder.submit(`/dashboard/keys/${id}/roll`)).status).toBe(404);
    expect((await anchorWith(first)).status).toBe(201);
  });

  it('shows when each key was created and last used, recording use at most once a minute', async () => {
    const { browser, first } = await signedIn();
    const lastUsed = async () =>
      (await t.prisma.apiKey.findFirstOrThrow({ where: { prefix: first.slice(0, 12) } })).lastUsedAt;
    expect(await lastUsed()).toBeNull();
    expect((await browser.get('/dashboard')).text).toContain('never');

    await anchorWith(first);
    const recorded = await lastUsed();
    expect(recorded).not.toBeNull();
    await anchorWith(first);
    expect(await lastUsed()).toEqual(recorded);

    t.clock.advanceMinutes(2);
    await anchorWith(first);
    expect((await lastUsed())?.getTime()).toBeGreaterThan(recorded?.getTime() ?? Infinity);
    const page = (await browser.get('/dashboard')).text;
    const row = new RegExp(`<code>${first.slice(0, 12)}…</code>[\\s\\S]*?</tr>`).exec(page)?.[0] ?? '';
    expect(row.match(/<time datetime=/g)).toHaveLength(2);
  });

  it('does not roll the console key of a session', async () => {
    const { browser } = await signedIn();
    const consoleKey = await t.prisma.apiKey.findFirstOrThrow({
      where: { name: 'console (session)', revokedAt: null },
      orderBy: { createdAt: 'desc' },
    });
    const response = await browser.submit(`/dashboard/keys/${consoleKey.id}/roll`);
    expect(response.status).toBe(409);
  });

  it('creates a restricted key with a level per resource: tnr_, its permissions shown, doing only them', async () => {
    const { browser } = await signedIn();
    const created = await browser.submit('/dashboard/keys', {
      name: 'widget',
      access: 'restricted',
      permission_anchors: 'write',
      permission_events: 'read',
      permission_clock: 'none',
    });
    expect(created.status).toBe(201);
    const key = freshKeyOf(created.text);
    expect(key).toMatch(/^tnr_/);
    expect((await anchorWith(key)).status).toBe(201);
    expect((await request(t.app).post('/v1/pause-time').set('Authorization', `Bearer ${key}`)).status).toBe(403);

    const page = (await browser.get('/dashboard')).text;
    const row = page.slice(page.indexOf(`<code>${key.slice(0, 12)}…</code>`));
    const permissions = /<td data-permissions>([\s\S]*?)<\/td>/.exec(row)?.[1] ?? '';
    expect(permissions).toContain('<code>anchors:write</code>');
    expect(permissions).toContain('<code>events:read</code>');
    expect(permissions).not.toContain('clock');
    expect(page).toMatch(/<td data-permissions>\s*full access\s*<\/td>/);
  });

  it('creates a full key unless restricted is chosen, whatever the levels sent', async () => {
    const { browser } = await signedIn();
    const created = await browser.submit('/dashboard/keys', { access: 'full', permission_anchors: 'read' });
    expect(freshKeyOf(created.text)).toMatch(/^tns_/);
  });

  it('refuses an access, resource or level no form sends with 400, creating no key', async () => {
    const { browser } = await signedIn();
    const keys = await t.prisma.apiKey.count();
    const faults: Array<[Record<string, string>, string]> = [
      [{ access: 'admin' }, "Access is full or restricted, not 'admin'."],
      [{ access: 'restricted', permission_anchor: 'write' }, "There is no resource 'anchor'"],
      [{ access: 'restricted', permission_anchors: 'all' }, "The level of anchors is none, read or write, not 'all'."],
    ];
    for (const [form, message] of faults) {
      const refused = await browser.submit('/dashboard/keys', form);
      expect(refused.status).toBe(400);
      expect(refused.text).toContain(message.replaceAll("'", '&#39;'));
    }
    expect(await t.prisma.apiKey.count()).toBe(keys);
  });

  it('redirects to sign-in when not signed in', async () => {
    const response = await request(t.app).get('/dashboard');
    expect(response.status).toBe(303);
    expect(response.headers.location).toBe('/login?next=/dashboard');
  });
});
