import { parseCookie } from 'cookie';
import type { CookieOptions, Request, Response } from 'express';
import { SESSION_ABSOLUTE_MS } from '../../../core/domain/session';

export const SESSION_COOKIE = 'tns_session';
/** The random value the sign-in and sign-up forms' CSRF token is bound to, before any session exists. */
export const FORM_COOKIE = 'tns_form';

/** Tokens we issue are 43 base64url characters; anything much longer is not worth a lookup. */
const MAX_COOKIE_VALUE_LENGTH = 128;

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.get('cookie');
  if (!header) return undefined;
  const value = parseCookie(header)[name];
  return value && value.length <= MAX_COOKIE_VALUE_LENGTH ? value : undefined;
}

/**
 * Every value the request carries for the cookie `name`: a browser sends one cookie per path that
 * matches, the longest path first, and `readCookie` sees the first alone. Values are taken as sent
 * (the service's cookies need no decoding).
 */
export function readCookieValues(req: Request, name: string): string[] {
  const header = req.get('cookie');
  if (!header) return [];
  return header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair.startsWith(`${name}=`))
    .map((pair) => pair.slice(name.length + 1))
    .filter((value) => value.length <= MAX_COOKIE_VALUE_LENGTH);
}

/**
 * HttpOnly (no script reads it), SameSite=Lax (not sent on cross-site posts), Secure when the
 * request came over HTTPS (directly, or through a proxy trusted with TRUST_PROXY).
 */
function cookieOptions(req: Request, maxAgeMs: number | undefined): CookieOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    secure: req.secure,
    path: '/',
    ...(maxAgeMs === undefined ? {} : { maxAge: maxAgeMs }),
  };
}

export function setSessionCookie(req: Request, res: Response, token: string): void {
  // The browser may drop it at the absolute limit; the server enforces both limits regardless.
  res.cookie(SESSION_COOKIE, token, cookieOptions(req, SESSION_ABSOLUTE_MS));
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.clearCookie(SESSION_COOKIE, cookieOptions(req, undefined));
}

export function setFormCookie(req: Request, res: Response, nonce: string): void {
  // A browser-session cookie: it only ties a form to the browser that loaded it.
  res.cookie(FORM_COOKIE, nonce, cookieOptions(req, undefined));
}
