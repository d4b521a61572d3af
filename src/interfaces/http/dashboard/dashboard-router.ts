import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import type { Container } from 'inversify';
import { API_KEY_NAME_MAX_LENGTH } from '../../../core/domain/account';
import {
  ApiKeyNotFound,
  BlankPassword,
  CommonPassword,
  ConsoleKeyNotRollable,
  DomainError,
  EmailAlreadyRegistered,
  InvalidCredentials,
  SessionRequired,
  TooManyApiKeys,
} from '../../../core/domain/errors';
import { CreateApiKey } from '../../../core/use-cases/api-keys/create-api-key';
import { ListApiKeys } from '../../../core/use-cases/api-keys/list-api-keys';
import { RevokeApiKey } from '../../../core/use-cases/api-keys/revoke-api-key';
import { RollApiKey } from '../../../core/use-cases/api-keys/roll-api-key';
import { LogIn } from '../../../core/use-cases/sessions/log-in';
import { LogOut } from '../../../core/use-cases/sessions/log-out';
import { ResolveSession, type SignedIn } from '../../../core/use-cases/sessions/resolve-session';
import { SignUp } from '../../../core/use-cases/sessions/sign-up';
import { CreateAccountDto } from '../dtos/account.dto';
import { STATUS_BY_CODE } from '../error-statuses';
import { Problem } from '../problem';
import { validateInput } from '../validation/validate-input';
import type { CsrfGuard } from './csrf';
import { DASHBOARD_CSS, DASHBOARD_CSS_PATH, sendPage } from './layout';
import { dashboardPage, loginPage, messagePage, signUpPage, type DashboardView } from './pages';
import {
  clearSessionCookie,
  FORM_COOKIE,
  readCookie,
  SESSION_COOKIE,
  setFormCookie,
  setSessionCookie,
} from './session-cookie';

/** Forms are small: an email, a password, a key name and a token. */
const parseForm = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 10 });

interface SignedInRequest {
  readonly signedIn: SignedIn;
  readonly sessionToken: string;
}

/**
 * The account dashboard: sign up, sign in and out in the browser, and manage API keys. Pages are
 * server-rendered HTML; every form post is checked against CSRF before anything runs.
 */
export function dashboardRouter(container: Container, csrf: CsrfGuard): Router {
  const signUp = container.get(SignUp);
  const logIn = container.get(LogIn);
  const logOut = container.get(LogOut);
  const resolveSession = container.get(ResolveSession);
  const listApiKeys = container.get(ListApiKeys);
  const createApiKey = container.get(CreateApiKey);
  const rollApiKey = container.get(RollApiKey);
  const revokeApiKey = container.get(RevokeApiKey);
  const router = Router();

  /** The signed-in session of the request, or null; an unknown or ended one clears the cookie. */
  async function currentSession(req: Request, res: Response): Promise<SignedInRequest | null> {
    const sessionToken = readCookie(req, SESSION_COOKIE);
    if (!sessionToken) return null;
    try {
      return { signedIn: await resolveSession.execute({ sessionToken }), sessionToken };
    } catch (error) {
      if (!(error instanceof SessionRequired)) throw error;
      clearSessionCookie(req, res);
      return null;
    }
  }

  /** The form nonce of this browser, made and set on first sight. */
  function formNonce(req: Request, res: Response): string {
    const existing = readCookie(req, FORM_COOKIE);
    if (existing) return existing;
    const nonce = csrf.newFormNonce();
    setFormCookie(req, res, nonce);
    return nonce;
  }

  function refuseForgery(res: Response): void {
    sendPage(
      res,
      403,
      messagePage(
        'Form not accepted',
        'This form was not sent from a page of this service, or it has expired. Open the page again and retry.',
        { href: '/dashboard', text: 'Back to the dashboard' },
      ),
    );
  }

  /** A pre-session form (sign-in, sign-up): same origin, and the token signed for this browser's nonce. */
  function preSessionFormIsGenuine(req: Request): boolean {
    const nonce = readCookie(req, FORM_COOKIE);
    return (
      csrf.fromThisOrigin(req) && nonce !== undefined && csrf.matches(formField(req, 'csrf'), csrf.formToken(nonce))
    );
  }

  function view(signedIn: SignedInRequest) {
    return { email: signedIn.signedIn.email, csrfToken: csrf.sessionToken(signedIn.sessionToken) };
  }

  async function renderDashboard(
    res: Response,
    status: number,
    signedIn: SignedInRequest,
    extra: Partial<DashboardView> = {},
  ): Promise<void> {
    const keys = await listApiKeys.execute({ accountId: signedIn.signedIn.session.accountId });
    sendPage(res, status, dashboardPage({ signedIn: view(signedIn), keys, ...extra }));
  }

  /** Signed-in form posts: a session, same origin, and the session's synchronizer token. */
  function signedInPost(
    handle: (req: Request, res: Response, signedIn: SignedInRequest) => Promise<void>,
  ): RequestHandler[] {
    return [
      parseForm,
      async (req, res) => {
        if (!csrf.fromThisOrigin(req)) return refuseForgery(res);
        const signedIn = await currentSession(req, res);
        if (!signedIn) return res.redirect(303, '/login?next=/dashboard');
        if (!csrf.matches(formField(req, 'csrf'), csrf.sessionToken(signedIn.sessionToken))) return refuseForgery(res);
        await handle(req, res, signedIn);
      },
    ];
  }

  router.get(DASHBOARD_CSS_PATH, (_req, res) => {
    res.set({ 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }).send(DASHBOARD_CSS);
  });

  router.get('/', (_req, res) => res.redirect(303, '/dashboard'));

  router.get('/login', async (req, res) => {
    const next = safeNext(req.query.next);
    if (await currentSession(req, res)) return res.redirect(303, next);
    sendPage(res, 200, loginPage({ csrfToken: csrf.formToken(formNonce(req, res)), next }));
  });

  router.post('/login', parseForm, async (req, res) => {
    if (!preSessionFormIsGenuine(req)) return refuseForgery(res);
    const next = safeNext(formField(req, 'next'));
    const email = formField(req, 'email') ?? '';
    const password = formField(req, 'password') ?? '';
    const again = (status: number, error: string) =>
      sendPage(res, status, loginPage({ csrfToken: csrf.formToken(formNonce(req, res)), next, email, error }));
    if (!email || !password || email.length > 254 || password.length > 256)
      return again(400, 'Enter your email and your password.');
    try {
      const opened = await logIn.execute({ email, password, clientAddress: req.ip ?? 'unknown' });
      setSessionCookie(req, res, opened.token);
      res.redirect(303, next);
    } catch (error) {
      if (!(error instanceof InvalidCredentials)) throw error;
      again(statusOf(error), error.message);
    }
  });

  router.get('/signup', async (req, res) => {
    const next = safeNext(req.query.next);
    if (await currentSession(req, res)) return res.redirect(303, next);
    sendPage(res, 200, signUpPage({ csrfToken: csrf.formToken(formNonce(req, res)), next }));
  });

  router.post('/signup', parseForm, async (req, res) => {
    if (!preSessionFormIsGenuine(req)) return refuseForgery(res);
    const next = safeNext(formField(req, 'next'));
    const email = formField(req, 'email') ?? '';
    const again = (status: number, error: string) =>
      sendPage(res, status, signUpPage({ csrfToken: csrf.formToken(formNonce(req, res)), next, email, error }));
    try {
      // The same rules as POST /v1/accounts, from the same DTO.
      const input = validateInput(CreateAccountDto, { email, password: formField(req, 'password') ?? '' });
      const created = await signUp.execute({ email: input.email, password: input.password });
      setSessionCookie(req, res, created.session.token);
      const signedIn = {
        signedIn: await resolveSession.execute({ sessionToken: created.session.token }),
        sessionToken: created.session.token,
      };
      const [first] = (await listApiKeys.execute({ accountId: created.account.id })).filter((key) =>
        created.apiKey.startsWith(key.prefix),
      );
      // Rendered here rather than redirected: the whole key exists only in this response.
      if (!first) throw new Error('A new account has no API key');
      await renderDashboard(res, 201, signedIn, {
        fresh: { key: first, secret: created.apiKey },
        message: next === '/docs' ? 'Account opened. Your try-it console is ready at /docs.' : 'Account opened.',
      });
    } catch (error) {
      if (error instanceof Problem && error.code === 'validation_failed') return again(400, validationMessage(error));
      if (error instanceof EmailAlreadyRegistered) return again(statusOf(error), `${error.message} Sign in instead.`);
      if (error instanceof BlankPassword || error instanceof CommonPassword)
        return again(statusOf(error), error.message);
      throw error;
    }
  });

  router.post('/logout', parseForm, async (req, res) => {
    if (!csrf.fromThisOrigin(req)) return refuseForgery(res);
    const sessionToken = readCookie(req, SESSION_COOKIE);
    if (sessionToken) {
      // The token must be this session's: a forged post cannot sign someone out either.
      if (!csrf.matches(formField(req, 'csrf'), csrf.sessionToken(sessionToken))) return refuseForgery(res);
      await logOut.execute({ sessionToken });
    }
    clearSessionCookie(req, res);
    res.redirect(303, '/login');
  });

  router.get('/dashboard', async (req, res) => {
    const signedIn = await currentSession(req, res);
    if (!signedIn) return res.redirect(303, '/login?next=/dashboard');
    await renderDashboard(res, 200, signedIn);
  });

  router.post(
    '/dashboard/keys',
    ...signedInPost(async (req, res, signedIn) => {
      const given = formField(req, 'name') ?? '';
      const name = given.trim();
      // Empty means unnamed; spaces alone are a name typed wrong, as in the API's text fields.
      if (given !== '' && name === '') {
        return renderDashboard(res, 400, signedIn, {
          error: 'A key name cannot be only white space: leave it empty for an unnamed key.',
        });
      }
      if (name.length > API_KEY_NAME_MAX_LENGTH) {
        return renderDashboard(res, 400, signedIn, {
          error: `A key name has at most ${API_KEY_NAME_MAX_LENGTH} characters.`,
        });
      }
      try {
        const issued = await createApiKey.execute({
          accountId: signedIn.signedIn.session.accountId,
          name: name || null,
        });
        await renderDashboard(res, 201, signedIn, { fresh: issued });
      } catch (error) {
        if (!(error instanceof TooManyApiKeys)) throw error;
        await renderDashboard(res, statusOf(error), signedIn, { error: error.message });
      }
    }),
  );

  router.post(
    '/dashboard/keys/:keyId/roll',
    ...signedInPost(async (req, res, signedIn) => {
      const keyId = keyIdParam(req);
      try {
        const issued = await rollApiKey.execute({ accountId: signedIn.signedIn.session.accountId, keyId });
        await renderDashboard(res, 200, signedIn, { fresh: { ...issued, replaced: keyId } });
      } catch (error) {
        if (!(error instanceof ApiKeyNotFound || error instanceof ConsoleKeyNotRollable)) throw error;
        await renderDashboard(res, statusOf(error), signedIn, { error: error.message });
      }
    }),
  );

  router.post(
    '/dashboard/keys/:keyId/revoke',
    ...signedInPost(async (req, res, signedIn) => {
      const keyId = keyIdParam(req);
      try {
        const revoked = await revokeApiKey.execute({ accountId: signedIn.signedIn.session.accountId, keyId });
        await renderDashboard(res, 200, signedIn, {
          message: `Key ${revoked.prefix}… is revoked: requests with it are refused from now on.`,
        });
      } catch (error) {
        if (!(error instanceof ApiKeyNotFound)) throw error;
        await renderDashboard(res, statusOf(error), signedIn, { error: error.message });
      }
    }),
  );

  return router;
}

/**
 * One field of a parsed form; a repeated field, or one with control characters (which no email,
 * password or key name has, and PostgreSQL cannot store as NUL), is not a value we take.
 */
function formField(req: Request, name: string): string | undefined {
  const body: unknown = req.body;
  if (typeof body !== 'object' || body === null || !(name in body)) return undefined;
  const value: unknown = Reflect.get(body, name);
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a form field must not hold
  return typeof value === 'string' && !/[\u0000-\u001f\u007f]/.test(value) ? value : undefined;
}

/** A key id from the path, or '' (which names no key) when it cannot be one. */
function keyIdParam(req: Request): string {
  const keyId = String(req.params.keyId);
  return /^key_[0-9a-f]{32}$/.test(keyId) ? keyId : '';
}

/** Only a path of this service, never `//elsewhere` or a full URL: no open redirect after sign-in. */
export function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/(?![/\\])[\x21-\x7e]*$/.test(next) ? next : '/dashboard';
}

function statusOf(error: DomainError): number {
  return STATUS_BY_CODE[error.code] ?? 400;
}

function validationMessage(problem: Problem): string {
  const errors = problem.extensions.errors;
  if (!Array.isArray(errors)) return problem.detail;
  const messages = errors.flatMap((error: unknown) =>
    typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string'
      ? [error.message]
      : [],
  );
  return messages.length > 0 ? `${[...new Set(messages)].join('; ')}.` : problem.detail;
}
