import { Router } from 'express';
import type { Container } from 'inversify';
import { ListApiKeys } from '../../../core/use-cases/api-keys/list-api-keys';
import { ResolveSession } from '../../../core/use-cases/sessions/resolve-session';
import type { CsrfGuard } from './csrf';
import type { KnownDevices } from './known-device';
import { addKeyRoutes } from './key-routes';
import { addPasswordRoutes } from './password-routes';
import { DASHBOARD_CSS, DASHBOARD_CSS_PATH } from './layout';
import { addSessionRoutes } from './session-routes';
import { SignedInPages } from './signed-in';
import { addWebhookRoutes } from './webhook-routes';

/**
 * The account dashboard: sign up, sign in and out in the browser, and manage API keys and
 * webhook endpoints. Pages are
 * server-rendered HTML; every form post is checked against CSRF before anything runs.
 */
export function dashboardRouter(container: Container, csrf: CsrfGuard, devices: KnownDevices): Router {
  const pages = new SignedInPages(container.get(ResolveSession), container.get(ListApiKeys), csrf);
  const router = Router();

  router.get(DASHBOARD_CSS_PATH, (_req, res) => {
    res.set({ 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }).send(DASHBOARD_CSS);
  });

  router.get('/', (_req, res) => res.redirect(303, '/dashboard'));

  addSessionRoutes(router, container, { csrf, devices }, pages);
  addKeyRoutes(router, container, pages);
  addPasswordRoutes(router, container, pages, devices);
  addWebhookRoutes(router, container, pages);
  return router;
}
