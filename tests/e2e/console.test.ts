import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startBrowserApp, type BrowserApp } from '../support/e2e/browser-app';

// A person's path through the service in a real browser.
const SCREENSHOTS = join(__dirname, '../../test-output/screenshots');

jest.setTimeout(120_000);

describe('sign up, read the key, try the API in the console, roll the key', () => {
  let app: BrowserApp;
  let base: string;
  let page: Page;

  beforeAll(async () => {
    app = await startBrowserApp();
    ({ base, page } = app);
    await mkdir(SCREENSHOTS, { recursive: true });
  });

  afterAll(() => app?.close());

  const apiStatus = async (key: string): Promise<number> =>
    (await fetch(`${base}/timelines`, { headers: { Authorization: `Bearer ${key}` } })).status;

  it('walks the whole path', async () => {
    await page.goto(`${base}/docs`);
    // Not signed in: the console asks for a sign-in and offers a sign-up.
    await page.getByRole('paragraph').getByRole('link', { name: 'Sign up' }).click();
    await page.getByLabel('Email').fill(`browser-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign up' }).click();

    // The dashboard shows the whole key this once.
    const firstKey = (await page.getByTestId('new-api-key').textContent())?.trim() ?? '';
    expect(firstKey).toMatch(/^tns_[A-Za-z0-9_-]{43}$/);
    expect(await apiStatus(firstKey)).toBe(200);
    await page.screenshot({ path: join(SCREENSHOTS, 'dashboard.png'), fullPage: true });

    await page.goto(`${base}/docs`);
    const anchors = page.locator('.opblock-post').filter({ has: page.locator('[data-path="/v1/anchors"]') });
    await anchors.locator('.opblock-summary').first().click();
    await anchors
      .locator('textarea.body-param__text')
      .fill(JSON.stringify({ description: 'Set from the browser console' }));
    await anchors.locator('button.execute').click();
    const status = anchors.locator('.live-responses-table tbody td.response-col_status').first();
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe('201');
    await page.screenshot({ path: join(SCREENSHOTS, 'console.png'), fullPage: true });

    await page.goto(`${base}/dashboard`);
    await page.locator(`tr:has(code:text-is("${firstKey.slice(0, 12)}…")) button:text("Roll")`).click();
    const rolled = (await page.getByTestId('new-api-key').textContent())?.trim() ?? '';
    expect(rolled).toMatch(/^tns_/);
    expect(rolled).not.toBe(firstKey);
    expect(await apiStatus(firstKey)).toBe(401);
    expect(await apiStatus(rolled)).toBe(200);
    await page.screenshot({ path: join(SCREENSHOTS, 'dashboard-rolled.png'), fullPage: true });
  });
});
