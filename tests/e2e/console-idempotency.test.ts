import type { Locator, Page, Response } from 'playwright-core';
import { startBrowserApp, type BrowserApp } from '../support/e2e/browser-app';
import type { TestApp } from '../support/http/test-app';

// The try-it console sends an Idempotency-Key only when the visitor types one (docs/dashboard.md).
jest.setTimeout(120_000);

describe('the try-it console and Idempotency-Key', () => {
  let app: BrowserApp;
  let t: TestApp;
  let base: string;
  let page: Page;

  beforeAll(async () => {
    app = await startBrowserApp();
    ({ t, base, page } = app);
    await page.goto(`${base}/signup?next=/docs`);
    await page.getByLabel('Email').fill(`idempotency-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByTestId('new-api-key').waitFor();
  });

  afterAll(() => app?.close());

  const operation = (path: string): Locator =>
    page.locator('.opblock-post').filter({ has: page.locator(`[data-path="${path}"]`) });

  async function open(path: string): Promise<Locator> {
    const block = operation(path);
    await block.locator('.opblock-summary').first().click();
    await block.locator('textarea.body-param__text').waitFor();
    return block;
  }

  /** Executes the opened operation with this body; the API's answer as the browser received it. */
  async function execute(block: Locator, path: string, body: unknown): Promise<Response> {
    await block.locator('textarea.body-param__text').fill(JSON.stringify(body));
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === path),
      block.locator('button.execute').click(),
    ]);
    return response;
  }

  const sentKey = (response: Response): Promise<string | null> => response.request().headerValue('idempotency-key');

  it('answers two different POSTs, and one POST twice with different bodies, each with 2xx', async () => {
    await page.goto(`${base}/docs`);
    const anchors = await open('/v1/anchors');
    const home = await execute(anchors, '/v1/anchors', { description: 'Home' });
    expect(home.status()).toBe(201);
    const work = await execute(anchors, '/v1/anchors', { description: 'Work' });
    expect(work.status()).toBe(201);
    const items = await open('/v1/items');
    const rock = await execute(items, '/v1/items', { description: 'Moon rock', location: 'Sea of Tranquility' });
    expect(rock.status()).toBe(201);

    // The field starts empty (no example value filled in), so the console sent no key.
    expect(await anchors.locator('tr[data-param-name="Idempotency-Key"] input').inputValue()).toBe('');
    for (const response of [home, work, rock]) expect(await sentKey(response)).toBeNull();
    const created = await Promise.all([home.json(), work.json(), rock.json()]);
    expect(new Set(created.map((body: { id: string }) => body.id)).size).toBe(3);
    const anchorsStored = await t.prisma.anchor.findMany({ where: { description: { in: ['Home', 'Work'] } } });
    expect(anchorsStored.map((anchor) => anchor.description).sort()).toEqual(['Home', 'Work']);
  });

  it('sends a key the visitor types, so a repeat is answered from the first', async () => {
    await page.goto(`${base}/docs`);
    const anchors = await open('/v1/anchors');
    const key = `typed-${Date.now()}`;
    await anchors.locator('tr[data-param-name="Idempotency-Key"] input').fill(key);

    const first = await execute(anchors, '/v1/anchors', { description: 'Typed key' });
    const repeat = await execute(anchors, '/v1/anchors', { description: 'Typed key' });
    expect(first.status()).toBe(201);
    expect(repeat.status()).toBe(201);
    expect(await sentKey(first)).toBe(key);
    expect(await repeat.headerValue('idempotent-replayed')).toBe('true');
    expect((await repeat.json()).id).toBe((await first.json()).id);
    expect(await t.prisma.anchor.count({ where: { description: 'Typed key' } })).toBe(1);
  });
});
