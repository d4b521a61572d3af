import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startBrowserApp, type BrowserApp } from '../support/e2e/browser-app';
import { waitFor } from '../support/wait-for';

// The try-it console's live feed in a real browser: GET /v1/monitor-events as an event stream,
// read with the session's console key (docs/dashboard.md, "Live events").
const SCREENSHOTS = join(__dirname, '../../test-output/screenshots');
const PLACE = 'Sea of Tranquility';

jest.setTimeout(120_000);

describe('the console live feed', () => {
  let app: BrowserApp;
  let base: string;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    app = await startBrowserApp();
    ({ base, page } = app);
    // A script the page's policy refused, or any error of its own, fails the test.
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${message.text()} (${message.location().url})`);
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });
    await mkdir(SCREENSHOTS, { recursive: true });
  });
  afterAll(() => app?.close());

  const api = (key: string, path: string, body: object) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (response) => ({
      status: response.status,
      body: (await response.json()) as Record<string, unknown>,
    }));
  const entries = () => page.locator('#live-list li');

  it('shows the events recorded, then each new one, and a moved one in place', async () => {
    await page.goto(`${base}/signup`);
    await page.getByLabel('Email').fill(`live-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign up' }).click();
    const key = (await page.getByTestId('new-api-key').textContent())?.trim() ?? '';
    expect((await api(key, '/v1/pause-time', {})).status).toBe(200);
    const first = await api(key, '/api/v1/travel', { destination_time: '1969-07-20T20:17:40Z', location: PLACE });
    expect(first.status).toBe(200);

    await page.goto(`${base}/docs`);
    await page.getByRole('button', { name: 'Watch' }).click();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    expect(await entries().allTextContents()).toEqual([
      `1969-07-20T20:17:40Z · arrival · Traveller arrives at ${PLACE}`,
    ]);

    expect(
      (await api(key, '/api/v1/travel', { destination_time: '1969-07-20T21:00:00Z', location: PLACE })).status,
    ).toBe(200);
    await entries().nth(1).waitFor();
    expect(await entries().nth(1).textContent()).toBe(`1969-07-20T21:00:00Z · arrival · Traveller arrives at ${PLACE}`);

    const scan = await api(key, '/api/v1/scan-events', {
      location: PLACE,
      time_range: '1969-07-20T20:00:00Z/1969-07-20T20:30:00Z',
    });
    const [arrival] = scan.body.events as Array<{ event_id: string }>;
    const moved = await api(key, '/api/v1/manipulate-event', {
      event_id: arrival?.event_id,
      action: 'Land later',
      time: '1969-07-20T22:00:00Z',
    });
    expect(moved.status).toBe(200);
    const updated = page.locator(`#live-list li[data-event-id="${arrival?.event_id}"][data-kind="updated"]`);
    await updated.waitFor();
    expect(await updated.textContent()).toBe(`1969-07-20T22:00:00Z · arrival · Traveller arrives at ${PLACE} (moved)`);
    await page.screenshot({ path: join(SCREENSHOTS, 'console-live-events.png'), fullPage: true });

    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Stopped.' }).waitFor();
    // Stopping closed the stream on the server too.
    await waitFor(() => app.t.eventStreams.size === 0, { what: 'the stream to close on the server' });
    expect(problems).toEqual([]);
  });

  it("leaves the event stream out of Swagger UI's copy of the document, which would wait for it for ever", async () => {
    await page.goto(`${base}/docs`);
    await page.locator('[data-path="/v1/monitor-events"]').first().waitFor();
    const operation = await page.evaluate(() => {
      const ui = (globalThis as unknown as { ui: { specSelectors: { specJson(): { toJS(): unknown } } } }).ui;
      const spec = ui.specSelectors.specJson().toJS() as {
        paths: Record<string, { get: { parameters: Array<{ name: string }>; responses: Record<string, object> } }>;
      };
      const get = spec.paths['/v1/monitor-events']?.get;
      return {
        media: Object.keys((get?.responses['200'] as { content: object }).content),
        parameters: get?.parameters.map((parameter) => parameter.name),
      };
    });
    expect(operation.media).toEqual(['application/json']);
    expect(operation.parameters).not.toContain('Last-Event-ID');
    expect(operation.parameters).toContain('location');
  });
});
