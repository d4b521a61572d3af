import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { normaliseEmail } from '../../../core/domain/account';
import { readCookie } from './session-cookie';

/** Set by a successful sign-in: this browser signed in to that email before (OWASP's device cookie). */
export const DEVICE_COOKIE = 'tns_device';
/** How long a browser stays known without signing in again. */
const KNOWN_FOR_MS = 180 * 24 * 60 * 60 * 1000;

/**
 * A browser that signed in to an email keeps a cookie saying so, signed with the service's form
 * secret and bound to that email (which it does not contain): its later sign-ins to it pass the
 * account-wide back-off that guessing from elsewhere sets off (docs/dashboard.md). It holds no
 * session and opens nothing; one email per browser, the last signed in to.
 */
export class KnownDevices {
  constructor(
    private readonly secret: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the request's cookie says its browser signed in to `email` within the last 180 days. */
  isKnown(req: Request, email: string): boolean {
    const [issued, signature] = (readCookie(req, DEVICE_COOKIE) ?? '').split('.');
    const issuedAt = Number(issued);
    if (!signature || !/^\d{1,15}$/.test(issued ?? '') || this.now() - issuedAt > KNOWN_FOR_MS) return false;
    const expected = Buffer.from(this.sign(email, issuedAt));
    const presented = Buffer.from(signature);
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  }

  /** Marks the browser as known to `email`, after it signed in to it. */
  remember(req: Request, res: Response, email: string): void {
    const issuedAt = this.now();
    res.cookie(DEVICE_COOKIE, `${issuedAt}.${this.sign(email, issuedAt)}`, {
      httpOnly: true,
      sameSite: 'lax',
      secure: req.secure,
      path: '/login',
      maxAge: KNOWN_FOR_MS,
    });
  }

  private sign(email: string, issuedAt: number): string {
    return createHmac('sha256', this.secret)
      .update(`device:${normaliseEmail(email)}:${issuedAt}`)
      .digest('base64url');
  }
}
