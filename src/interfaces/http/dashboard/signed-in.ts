import type { Request, RequestHandler, Response } from 'express';
import { SessionRequired } from '../../../core/domain/errors';
import type { ListApiKeys } from '../../../core/use-cases/api-keys/list-api-keys';
import type { ResolveSession, SignedIn } from '../../../core/use-cases/sessions/resolve-session';
import type { CsrfGuard } from './csrf';
import { parseForm, refuseForgery, sessionFormIsGenuine } from './forms';
import { sendPage } from './layout';
import { dashboardPage, type DashboardView, type SignedInView } from './pages';
import { clearSessionCookie, readCookie, SESSION_COOKIE } from './session-cookie';

export interface SignedInRequest {
  readonly signedIn: SignedIn;
  readonly sessionToken: string;
}

/**
 * What the pages of a signed-in account share (the key and webhook forms, and sign-up's first
 * dashboard): the session a request carries, and the dashboard page with the account's keys.
 */
export class SignedInPages {
  constructor(
    private readonly resolveSession: ResolveSession,
    private readonly listApiKeys: ListApiKeys,
    private readonly csrf: CsrfGuard,
  ) {}

  /** The signed-in session of the request, or null; an unknown or ended one clears the cookie. */
  async current(req: Request, res: Response): Promise<SignedInRequest | null> {
    const sessionToken = readCookie(req, SESSION_COOKIE);
    if (!sessionToken) return null;
    try {
      return await this.resolve(sessionToken);
    } catch (error) {
      if (!(error instanceof SessionRequired)) throw error;
      clearSessionCookie(req, res);
      return null;
    }
  }

  async resolve(sessionToken: string): Promise<SignedInRequest> {
    return { signedIn: await this.resolveSession.execute({ sessionToken }), sessionToken };
  }

  /** A signed-in form's post: a session, from this origin, with the session's synchronizer token. */
  formPost(handle: (req: Request, res: Response, signedIn: SignedInRequest) => Promise<void>): RequestHandler[] {
    return [
      parseForm,
      async (req, res) => {
        if (!this.csrf.fromThisOrigin(req)) return refuseForgery(res);
        const signedIn = await this.current(req, res);
        if (!signedIn) return res.redirect(303, '/login?next=/dashboard');
        if (!sessionFormIsGenuine(this.csrf, req, signedIn.sessionToken)) return refuseForgery(res);
        await handle(req, res, signedIn);
      },
    ];
  }

  async render(
    res: Response,
    status: number,
    signedIn: SignedInRequest,
    extra: Partial<DashboardView> = {},
  ): Promise<void> {
    const keys = await this.listApiKeys.execute({ accountId: signedIn.signedIn.session.accountId });
    sendPage(res, status, dashboardPage({ signedIn: this.view(signedIn), keys, ...extra }));
  }

  /** Who is signed in, as every signed-in page's header and forms show it. */
  view(signedIn: SignedInRequest): SignedInView {
    return {
      email: signedIn.signedIn.email,
      csrfToken: this.csrf.sessionToken(signedIn.sessionToken),
      passwordChangeDue: signedIn.signedIn.passwordChangeDue,
    };
  }
}
