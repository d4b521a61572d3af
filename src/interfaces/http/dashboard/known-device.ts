import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { normaliseEmail } from '../../../core/domain/account';
import { readCookieValues } from './session-cookie';

/** Set by a successful sign-in: this browser signed in to that email before (OWASP's device cookie). */
export const DEVICE_COOKIE = 'tns_device';
/** How long a browser stays known without signing in again. */
const KNOWN_FOR_MS = 180 * 24 * 60 * 60 * 1000;
/** `issuedAt.stamp.signature`: milliseconds, the account's device stamp, an HMAC of both and the email. */
const COOKIE_VALUE = /^(\d{1,15})\.(\d{1,9})\.([\w-]{43})$/;

/**
 * A browser that signed in to an email keeps a cookie saying so, signed with the service's form
 * secret and bound to that email (which it does not contain) and to the account's device stamp as
 * it was then: its later sign-ins and password changes pass the account-wide back-off that guessing
 * from elsewhere sets off, and its password work goes first (docs/dashboard.md). The core compares
 * the stamp with the account's, which a password change moves on, so a change ends every other
 * browser's cookie; the browser that changed it is given a new one. It holds no session and opens
 * nothing; one email per browser, the last signed in to. Sent to every path of the service: it is
 * read at /login and at the dashboard's password change, whose paths share no other prefix.
 */
export class KnownDevices {
  constructor(
    private readonly secret: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The device stamp the request's cookie carries for `email`, when it is this service's, for
   * that email, and issued within the last 180 days; otherwise null.
   */
  stampFor(req: Request, email: string): number | null {
    // One an earlier version set for /login alone may come first there: each is tried.
    for (const value of readCookieValues(req, DEVICE_COOKIE)) {
      const stamp = this.stampOf(value, email);
      if (stamp !== null) return stamp;
    }
    return null;
  }

  /** Marks the browser as known to `email`, at the account's device stamp, after it signed in or changed it. */
  remember(req: Request, res: Response, email: string, stamp: number): void {
    const issuedAt = this.now();
    res.cookie(DEVICE_COOKIE, `${issuedAt}.${stamp}.${this.sign(email, issuedAt, stamp)}`, {
      httpOnly: true,
      sameSite: 'lax',
      secure: req.secure,
      path: '/',
      maxAge: KNOWN_FOR_MS,
    });
  }

  private stampOf(value: string, email: string): number | null {
    const parts = COOKIE_VALUE.exec(value);
    if (!parts) return null;
    const [, issued, stamp, signature] = parts;
    const issuedAt = Number(issued);
    if (this.now() - issuedAt > KNOWN_FOR_MS) return null;
    const expected = Buffer.from(this.sign(email, issuedAt, Number(stamp)));
    const presented = Buffer.from(signature);
    return presented.length === expected.length && timingSafeEqual(presented, expected) ? Number(stamp) : null;
  }

  private sign(email: string, issuedAt: number, stamp: number): string {
    return createHmac('sha256', this.secret)
      .update(`device:${normaliseEmail(email)}:${issuedAt}:${stamp}`)
      .digest('base64url');
  }
}
