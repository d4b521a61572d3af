import type { Router } from 'express';
import type { Container } from 'inversify';
import {
  EmailAlreadyRegistered,
  InvalidCredentials,
  PasswordChecksBusy,
  UnacceptablePassword,
} from '../../../core/domain/errors';
import { ListApiKeys } from '../../../core/use-cases/api-keys/list-api-keys';
import { LogIn } from '../../../core/use-cases/sessions/log-in';
import { LogOut } from '../../../core/use-cases/sessions/log-out';
import { SignUp } from '../../../core/use-cases/sessions/sign-up';
import { CreateAccountDto } from '../dtos/account.dto';
import { Problem } from '../problem';
import { validateInput } from '../validation/validate-input';
import { passwordClientOf } from '../password-client';
import type { CsrfGuard } from './csrf';
import type { KnownDevices } from './known-device';
import {
  busyStatus,
  formField,
  formNonce,
  parseForm,
  preSessionFormIsGenuine,
  refuseForgery,
  sessionFormIsGenuine,
  statusOf,
  validationMessage,
} from './forms';
import { sendPage } from './layout';
import { loginPage, signUpPage } from './pages';
import { clearSessionCookie, readCookie, SESSION_COOKIE, setSessionCookie } from './session-cookie';
import type { SignedInPages } from './signed-in';

/** The form guards the session pages share. */
interface Guards {
  readonly csrf: CsrfGuard;
  readonly devices: KnownDevices;
}

/** Sign-in, sign-up and sign-out: the pages and posts that open and end a browser session. */
export function addSessionRoutes(router: Router, container: Container, guards: Guards, pages: SignedInPages): void {
  addLogIn(router, container.get(LogIn), guards, pages);
  addSignUp(router, container, guards, pages);
  addLogOut(router, container.get(LogOut), guards.csrf);
}

function addLogIn(router: Router, logIn: LogIn, { csrf, devices }: Guards, pages: SignedInPages): void {
  router.get('/login', async (req, res) => {
    const next = safeNext(req.query.next);
    if (await pages.current(req, res)) return res.redirect(303, next);
    sendPage(res, 200, loginPage({ csrfToken: csrf.formToken(formNonce(csrf, req, res)), next }));
  });

  router.post('/login', parseForm, async (req, res) => {
    if (!preSessionFormIsGenuine(csrf, req)) return refuseForgery(res);
    const next = safeNext(formField(req, 'next'));
    const email = formField(req, 'email') ?? '';
    const password = formField(req, 'password') ?? '';
    const again = (status: number, error: string) =>
      sendPage(res, status, loginPage({ csrfToken: csrf.formToken(formNonce(csrf, req, res)), next, email, error }));
    if (!email || !password || email.length > 254 || password.length > 256)
      return again(400, 'Enter your email and your password.');
    try {
      const opened = await logIn.execute({
        email,
        password,
        ...passwordClientOf(req, res),
        deviceStamp: devices.stampFor(req, email),
      });
      setSessionCookie(req, res, opened.token);
      devices.remember(req, res, email, opened.deviceStamp);
      res.redirect(303, next);
    } catch (error) {
      if (error instanceof PasswordChecksBusy) return again(busyStatus(res, error), error.message);
      if (!(error instanceof InvalidCredentials)) throw error;
      again(statusOf(error), error.message);
    }
  });
}

function addSignUp(router: Router, container: Container, { csrf, devices }: Guards, pages: SignedInPages): void {
  const signUp = container.get(SignUp);
  const listApiKeys = container.get(ListApiKeys);
  router.get('/signup', async (req, res) => {
    const next = safeNext(req.query.next);
    if (await pages.current(req, res)) return res.redirect(303, next);
    sendPage(res, 200, signUpPage({ csrfToken: csrf.formToken(formNonce(csrf, req, res)), next }));
  });

  router.post('/signup', parseForm, async (req, res) => {
    if (!preSessionFormIsGenuine(csrf, req)) return refuseForgery(res);
    const next = safeNext(formField(req, 'next'));
    const email = formField(req, 'email') ?? '';
    const again = (status: number, error: string) =>
      sendPage(res, status, signUpPage({ csrfToken: csrf.formToken(formNonce(csrf, req, res)), next, email, error }));
    try {
      // The same rules as POST /v1/accounts, from the same DTO.
      const input = validateInput(CreateAccountDto, { email, password: formField(req, 'password') ?? '' });
      const created = await signUp.execute({
        email: input.email,
        password: input.password,
        ...passwordClientOf(req, res),
      });
      setSessionCookie(req, res, created.session.token);
      devices.remember(req, res, input.email, created.account.deviceStamp);
      const signedIn = await pages.resolve(created.session.token);
      const [first] = (await listApiKeys.execute({ accountId: created.account.id })).filter((key) =>
        created.apiKey.startsWith(key.prefix),
      );
      // Rendered here rather than redirected: the whole key exists only in this response.
      if (!first) throw new Error('A new account has no API key');
      await pages.render(res, 201, signedIn, {
        fresh: { key: first, secret: created.apiKey },
        message: next === '/docs' ? 'Account opened. Your try-it console is ready at /docs.' : 'Account opened.',
      });
    } catch (error) {
      if (error instanceof Problem && error.code === 'validation_failed') return again(400, validationMessage(error));
      if (error instanceof EmailAlreadyRegistered) return again(statusOf(error), `${error.message} Sign in instead.`);
      if (error instanceof UnacceptablePassword) return again(statusOf(error), error.message);
      if (error instanceof PasswordChecksBusy) return again(busyStatus(res, error), error.message);
      throw error;
    }
  });
}

function addLogOut(router: Router, logOut: LogOut, csrf: CsrfGuard): void {
  router.post('/logout', parseForm, async (req, res) => {
    if (!csrf.fromThisOrigin(req)) return refuseForgery(res);
    const sessionToken = readCookie(req, SESSION_COOKIE);
    if (sessionToken) {
      // The token must be this session's: a forged post cannot sign someone out either.
      if (!sessionFormIsGenuine(csrf, req, sessionToken)) return refuseForgery(res);
      await logOut.execute({ sessionToken });
    }
    clearSessionCookie(req, res);
    res.redirect(303, '/login');
  });
}

/** Only a path of this service, never `//elsewhere` or a full URL: no open redirect after sign-in. */
export function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/(?![/\\])[\x21-\x7e]*$/.test(next) ? next : '/dashboard';
}
