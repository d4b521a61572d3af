import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';

/**
 * Cross-site request forgery defences of the dashboard's form posts (see docs/dashboard.md):
 * - signed-in forms carry a synchronizer token bound to the session: HMAC(secret, session token);
 * - the sign-in and sign-up forms, before any session, carry a signed double-submit token:
 *   HMAC(secret, nonce) where the nonce is in an HttpOnly cookie, so a token planted by another
 *   site or a sibling subdomain's cookie cannot be forged without the secret;
 * - and a post whose Origin is another origin, or whose Sec-Fetch-Site says cross-site, is refused
 *   whatever it carries.
 */
export class CsrfGuard {
  constructor(private readonly secret: string) {}

  newFormNonce(): string {
    return randomBytes(32).toString('base64url');
  }

  formToken(nonce: string): string {
    return this.sign(`form:${nonce}`);
  }

  sessionToken(sessionToken: string): string {
    return this.sign(`session:${sessionToken}`);
  }

  /** Whether `presented` is the token expected for this nonce or session token. */
  matches(presented: unknown, expected: string): boolean {
    if (typeof presented !== 'string') return false;
    const a = Buffer.from(presented);
    const b = Buffer.from(expected);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /** Browsers say where a post comes from; when they do, it must be this origin. */
  fromThisOrigin(req: Request): boolean {
    const site = req.get('sec-fetch-site');
    if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
    const origin = req.get('origin');
    if (origin === undefined) return true;
    return origin === `${req.protocol}://${req.host}`;
  }

  private sign(message: string): string {
    return createHmac('sha256', this.secret).update(message).digest('base64url');
  }
}
