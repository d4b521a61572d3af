import type { Server } from 'node:http';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../http/test-app';

// Debian's Chromium driven by playwright-core; never a browser download (README, "Two commands").
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface BrowserApp {
  readonly t: TestApp;
  /** Where the app listens, e.g. http://127.0.0.1:40123. */
  readonly base: string;
  readonly browser: Browser;
  readonly page: Page;
  close(): Promise<void>;
}

/** The whole app on a loopback port, and one page of a headless Chromium to drive it. */
export async function startBrowserApp(): Promise<BrowserApp> {
  const t = await startTestApp();
  const server: Server = t.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  return {
    t,
    base,
    browser,
    page,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
      await t.close();
    },
  };
}
