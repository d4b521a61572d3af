import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startBrowserApp, type BrowserApp } from '../support/e2e/browser-app';

// The dashboard's webhook section in a real browser: the forms as a person uses them.
const SCREENSHOTS = join(__dirname, '../../test-output/screenshots');
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

jest.setTimeout(120_000);

describe('webhook endpoints on the dashboard', () => {
  let app: BrowserApp;
  let base: string;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    app = await startBrowserApp();
    ({ base, page } = app);
    // A refused style or script (Content-Security-Policy) or any page error shows here; the one
    // 400 is the refused address's page, which the test asks for.
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().includes('status of 400')) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await mkdir(SCREENSHOTS, { recursive: true });
  });

  afterAll(() => app?.close());

  const secretShown = async () => (await page.getByTestId('new-webhook-secret').textContent())?.trim() ?? '';
  const row = () => page.locator('tr', { has: page.locator('code.url', { hasText: 'https://example.com/hooks' }) });
  const stored = () => app.t.prisma.webhookEndpoint.findFirstOrThrow({ where: { url: 'https://example.com/hooks' } });

  it('adds, disables, enables, rolls and deletes an endpoint', async () => {
    await page.goto(`${base}/signup`);
    await page.getByLabel('Email').fill(`webhooks-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click();
    await page.getByText('No endpoints yet.').waitFor();

    // A refused address: the reason on the page, what was typed kept.
    await page.getByLabel('URL').fill('https://127.0.0.1/hooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('an address webhooks may not reach');
    expect(await page.getByLabel('URL').inputValue()).toBe('https://127.0.0.1/hooks');

    await page.getByLabel('URL').fill('https://example.com/hooks');
    await page.getByRole('checkbox', { name: 'event.updated' }).uncheck();
    await page.getByLabel('Description').fill('production receiver');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const first = await secretShown();
    expect(first).toMatch(SECRET);
    expect(await stored()).toMatchObject({
      secret: first,
      eventTypes: ['event.recorded', 'timeline.window_closed'],
      description: 'production receiver',
    });
    await page.screenshot({ path: join(SCREENSHOTS, 'dashboard-webhooks.png'), fullPage: true });

    await row().getByRole('button', { name: 'Disable' }).click();
    expect(await row().getByTestId('endpoint-status').textContent()).toContain('disabled by you');
    await row().getByRole('button', { name: 'Enable' }).click();
    expect((await row().getByTestId('endpoint-status').textContent())?.trim()).toBe('enabled');
    expect((await stored()).status).toBe('enabled');

    await row().getByRole('button', { name: 'Roll secret' }).click();
    const second = await secretShown();
    expect(second).toMatch(SECRET);
    expect(second).not.toBe(first);
    expect((await stored()).secret).toBe(second);

    // A test, then its delivery as the job queue would record it, and a resend of it.
    await row().getByRole('button', { name: 'Send a test' }).click();
    await page.getByText('is queued, to be sent at once').waitFor();
    const [message, ...more] = await app.t.prisma.webhookMessage.findMany({
      where: { endpointId: (await stored()).id },
    });
    expect(more).toEqual([]);
    expect(message).toMatchObject({ eventType: 'webhook.test', state: 'pending' });
    await app.t.prisma.webhookMessage.update({
      where: { accountId_id: { accountId: message?.accountId ?? '', id: message?.id ?? '' } },
      data: {
        state: 'delivered',
        attempts: 1,
        tries: {
          create: {
            attempt: 1,
            endpointId: (await stored()).id,
            attemptedAt: new Date(),
            status: 200,
            durationMs: 42,
            answer: 'received, thanks',
          },
        },
      },
    });
    // Reloading the page the test redirected to sends nothing again.
    await page.reload();
    expect(await app.t.prisma.webhookMessage.count({ where: { endpointId: (await stored()).id } })).toBe(1);
    const attempt = page.locator('tr', { has: page.locator('code', { hasText: message?.id ?? '' }) });
    expect(await attempt.getByTestId('attempt-answer').textContent()).toContain('200');
    await attempt.getByText('answer', { exact: true }).click();
    expect(await attempt.locator('pre.answer').textContent()).toBe('received, thanks');
    await page.screenshot({ path: join(SCREENSHOTS, 'dashboard-webhook-deliveries.png'), fullPage: true });
    await attempt.getByRole('button', { name: 'Resend' }).click();
    await page.getByText(`${message?.id} is queued`).waitFor();
    expect(await app.t.prisma.webhookMessage.findFirst({ where: { id: message?.id } })).toMatchObject({
      state: 'pending',
      lastAttempt: 2,
    });
    await page.getByRole('link', { name: '← Webhook endpoints' }).click();

    // Deleting asks first: the button that deletes is hidden until the confirmation is opened.
    const deleteForGood = row().getByRole('button', { name: 'Delete for good' });
    expect(await deleteForGood.isVisible()).toBe(false);
    await row().getByText('Delete…').click();
    await deleteForGood.click();
    await page.getByText('is deleted').waitFor();
    expect(await row().count()).toBe(0);
    expect(await app.t.prisma.webhookEndpoint.count({ where: { url: 'https://example.com/hooks' } })).toBe(0);

    expect(problems).toEqual([]);
  });
});
