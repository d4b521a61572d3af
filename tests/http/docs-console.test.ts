import request from 'supertest';
import { aBrowser } from '../support/http/browser';
import { startTestApp, type TestApp } from '../support/http/test-app';

describe('/docs: the try-it console', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('sends a visitor who is not signed in to sign in, offering sign-up, and back', async () => {
    const response = await request(t.app).get('/docs');
    expect(response.status).toBe(303);
    expect(response.headers.location).toBe('/login?next=/docs');
    const login = await request(t.app).get('/login?next=/docs');
    expect(login.text).toContain('Sign in to use the try-it console');
    expect(login.text).toContain('href="/signup?next=%2Fdocs"');
  });

  it("embeds the session's console key, which works for the API and is stored only as a digest", async () => {
    const browser = aBrowser(t);
    await browser.signUp(undefined, '/docs');
    const page = await browser.get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain('<script src="/docs/assets/swagger-ui-bundle.js"></script>');
    expect(page.text).toContain('"specUrl":"/openapi.json"');
    const key = /"apiKey":"(tns_[A-Za-z0-9_-]{43})"/.exec(page.text)?.[1] ?? '';
    expect(key).not.toBe('');

    const anchor = await request(t.app)
      .post('/v1/anchors')
      .set('Authorization', `Bearer ${key}`)
      .send({ description: 'From the console' });
    expect(anchor.status).toBe(201);
    // The same key on every visit of the session, without it being stored.
    expect((await browser.get('/docs')).text).toContain(key);
    const stored = await t.prisma.apiKey.findFirstOrThrow({ where: { prefix: key.slice(0, 12) } });
    expect(stored.name).toBe('console (session)');
    expect(JSON.stringify(await t.prisma.apiKey.findMany())).not.toContain(key);
    expect(JSON.stringify(await t.prisma.session.findMany())).not.toContain(key);
  });

  it('tells the visitor when the console key was revoked, and sends no key', async () => {
    const browser = aBrowser(t);
    await browser.signUp();
    const key = /"apiKey":"(tns_[^"]+)"/.exec((await browser.get('/docs')).text)?.[1] ?? '';
    const stored = await t.prisma.apiKey.findFirstOrThrow({ where: { prefix: key.slice(0, 12) } });
    expect((await browser.submit(`/dashboard/keys/${stored.id}/revoke`)).status).toBe(200);
    const page = await browser.get('/docs');
    expect(page.text).toContain('"apiKey":null');
    expect(page.text).toContain('console key was revoked');
  });

  it('serves Swagger UI and the start-up script as static files', async () => {
    const bundle = await request(t.app).get('/docs/assets/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
    expect((await request(t.app).get('/docs/assets/swagger-ui.css')).status).toBe(200);
    const init = await request(t.app).get('/docs/console-init.js');
    expect(init.text).toContain('requestInterceptor');
    expect((await request(t.app).get('/docs/assets/package.json')).status).toBe(404);
  });

  it("serves every module the live feed's import map leads to, and no other file of their packages", async () => {
    const browser = aBrowser(t);
    await browser.signUp(undefined, '/docs');
    const page = await browser.get('/docs');
    const map = /<script type="importmap">(.*?)<\/script>/.exec(page.text)?.[1];
    const imports = (JSON.parse(map ?? '{}') as { imports?: Record<string, string> }).imports ?? {};
    expect(Object.keys(imports).sort()).toEqual(['eventsource', 'eventsource-parser']);
    // Follow the imports as a browser does: bare names through the map, relative paths from the module.
    const pending = [...Object.values(imports)];
    const served = new Set<string>();
    while (pending.length > 0) {
      const url = pending.pop() ?? '';
      if (served.has(url)) continue;
      const module = await request(t.app).get(url);
      expect({ url, status: module.status }).toEqual({ url, status: 200 });
      expect(module.headers['content-type']).toMatch(/^text\/javascript/);
      served.add(url);
      for (const [, specifier] of module.text.matchAll(/(?:from|import)\s*'([^']+)'/g)) {
        pending.push(imports[specifier ?? ''] ?? new URL(specifier ?? '', `http://service${url}`).pathname);
      }
    }
    expect(served.size).toBeGreaterThan(2);
    expect((await request(t.app).get('/docs/assets/eventsource/package.json')).status).toBe(404);
    expect((await request(t.app).get('/docs/assets/eventsource/../package.json')).status).toBe(404);
  });
});
