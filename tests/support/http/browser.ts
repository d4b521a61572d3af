import request from 'supertest';
import type { TestApp } from './test-app';

export const PASSWORD = 'correct horse battery';

let browsers = 0;

export function uniqueEmail(label = 'browser'): string {
  return `${label}-${process.pid}-${++browsers}-${Date.now()}@example.com`;
}

/** The CSRF token of the first form on a page. */
export function csrfOf(page: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(page);
  if (!match?.[1]) throw new Error(`no CSRF token on the page:\n${page.slice(0, 500)}`);
  return match[1];
}

/** The whole API key a page shows once, right after it was created or rolled. */
export function freshKeyOf(page: string): string {
  const match = /data-testid="new-api-key">(tn[sr]_[A-Za-z0-9_-]{43})</.exec(page);
  if (!match?.[1]) throw new Error('no new API key on the page');
  return match[1];
}

/** A cookie-keeping client, as a browser: sign up, sign in and post the dashboard's forms. */
export function aBrowser(t: TestApp, headers: Record<string, string> = {}) {
  const agent = request.agent(t.app);
  const get = (path: string) => agent.get(path).set(headers);
  const post = (path: string, form: Record<string, string>) => agent.post(path).set(headers).type('form').send(form);
  return {
    agent,
    get,
    post,
    async signUp(email = uniqueEmail(), next = '/dashboard') {
      const page = await get(`/signup?next=${encodeURIComponent(next)}`);
      return post('/signup', { csrf: csrfOf(page.text), email, password: PASSWORD, next });
    },
    async logIn(email: string, password = PASSWORD, next = '/dashboard') {
      const page = await get(`/login?next=${encodeURIComponent(next)}`);
      return post('/login', { csrf: csrfOf(page.text), email, password, next });
    },
    /** A form on the dashboard, with the session's token from the dashboard page. */
    async submit(path: string, form: Record<string, string> = {}) {
      const page = await get('/dashboard');
      return post(path, { csrf: csrfOf(page.text), ...form });
    },
  };
}

export type Browser = ReturnType<typeof aBrowser>;
