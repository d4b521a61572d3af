import express, { type Request, type Response } from 'express';
import type { DomainError, PasswordChecksBusy } from '../../../core/domain/errors';
import { localsOf } from '../answer-locals';
import { STATUS_BY_CODE } from '../error-statuses';
import type { Problem } from '../problem';
import type { CsrfGuard } from './csrf';
import { sendPage } from './layout';
import { messagePage } from './pages';
import { FORM_COOKIE, readCookie, setFormCookie } from './session-cookie';

/**
 * Forms are small: an email, a password, a key name, a webhook endpoint's URL (2,048 characters)
 * and description (1,000, percent-encoded up to 9 bytes each), a few event types and a token.
 */
export const parseForm = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 10 });

/**
 * One field of a parsed form; a repeated field, or one with control characters (which no email,
 * password or key name has, and PostgreSQL cannot store as NUL), is not a value we take.
 */
export function formField(req: Request, name: string): string | undefined {
  const body: unknown = req.body;
  if (typeof body !== 'object' || body === null || !(name in body)) return undefined;
  const value: unknown = Reflect.get(body, name);
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a form field must not hold
  return typeof value === 'string' && !/[\u0000-\u001f\u007f]/.test(value) ? value : undefined;
}

/** A field the form sent that formField does not take (repeated, or with control characters). */
export function formFieldRefused(req: Request, name: string): boolean {
  const body: unknown = req.body;
  return typeof body === 'object' && body !== null && name in body && formField(req, name) === undefined;
}

/**
 * A field a form may repeat (checkboxes of one name): every value, none when absent. A value that
 * is not text stays in as '', which names nothing, so the use case's check refuses it.
 */
export function formList(req: Request, name: string): string[] {
  const body: unknown = req.body;
  if (typeof body !== 'object' || body === null || !(name in body)) return [];
  const value: unknown = Reflect.get(body, name);
  const values: unknown[] = Array.isArray(value) ? value : [value];
  return values.map((one) => (typeof one === 'string' ? one : ''));
}

/** The form nonce of this browser, made and set on first sight. */
export function formNonce(csrf: CsrfGuard, req: Request, res: Response): string {
  const existing = readCookie(req, FORM_COOKIE);
  if (existing) return existing;
  const nonce = csrf.newFormNonce();
  setFormCookie(req, res, nonce);
  return nonce;
}

/** A pre-session form (sign-in, sign-up): same origin, and the token signed for this browser's nonce. */
export function preSessionFormIsGenuine(csrf: CsrfGuard, req: Request): boolean {
  const nonce = readCookie(req, FORM_COOKIE);
  return csrf.fromThisOrigin(req) && nonce !== undefined && csrf.matches(formField(req, 'csrf'), csrf.formToken(nonce));
}

/** A signed-in form (and sign-out): the synchronizer token of this session. */
export function sessionFormIsGenuine(csrf: CsrfGuard, req: Request, sessionToken: string): boolean {
  return csrf.matches(formField(req, 'csrf'), csrf.sessionToken(sessionToken));
}

export function refuseForgery(res: Response): void {
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

/** The status of a form's page that answers a domain error: the API's status for the same code. */
export function statusOf(error: DomainError): number {
  return STATUS_BY_CODE[error.code] ?? 400;
}

/**
 * A form refused because too much password work waits (`password_checks_busy`): its page says
 * so, with the API's status and `Retry-After`; the answer's log line and metrics name the code.
 */
export function busyStatus(res: Response, error: PasswordChecksBusy): number {
  res.set('Retry-After', String(error.retryAfterSeconds));
  localsOf(res).problemCode = error.code;
  return statusOf(error);
}

export function validationMessage(problem: Problem): string {
  const errors = problem.extensions.errors;
  if (!Array.isArray(errors)) return problem.detail;
  const messages = errors.flatMap((error: unknown) =>
    typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string'
      ? [error.message]
      : [],
  );
  return messages.length > 0 ? `${[...new Set(messages)].join('; ')}.` : problem.detail;
}
