import express, { type Express } from 'express';
import type { Container } from 'inversify';
import { AuthenticateApiKey } from '../../core/use-cases/accounts/authenticate-api-key';
import { CsrfGuard } from './dashboard/csrf';
import { dashboardRouter } from './dashboard/dashboard-router';
import { docsConsoleRouter } from './docs-console/docs-router';
import { mountRoutes } from './express-routes';
import { authenticate } from './middleware/authenticate';
import { problemHandler, routeNotFound } from './middleware/problem-handler';
import { serveOpenApi } from './openapi/serve';
import type { Route } from './route';
import { accountRoutes } from './routes/account-routes';
import { familyARoutes } from './routes/family-a-routes';
import { familyBRoutes } from './routes/family-b-routes';
import { familyCRoutes } from './routes/family-c-routes';

export interface AppOptions {
  /** Where failures that are not the client's fault are reported. */
  readonly logError?: (error: unknown) => void;
  /**
   * Express's 'trust proxy' (TRUST_PROXY): whether X-Forwarded-Proto/-For are believed, which makes
   * session cookies Secure behind an HTTPS proxy and throttles sign-ins by the real client address.
   */
  readonly trustProxy?: boolean | number | string;
  /** Signs the dashboard's CSRF tokens; every process behind one proxy must share it. */
  readonly formSecret: string;
}

/** Every operation the service runs; the route table the OpenAPI document is built from. */
export function allRoutes(container: Container): Route[] {
  return [...accountRoutes(container), ...familyARoutes(container), ...familyBRoutes(container), ...familyCRoutes(container)];
}

/** Builds the HTTP app over a wired container; listening is the caller's business (see main.ts). */
export function createApp(container: Container, options: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.set('trust proxy', options.trustProxy ?? false);
  // Liveness for the container's HEALTHCHECK and the proxy: no key, no data.
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/openapi.json', serveOpenApi(allRoutes(container)));
  const csrf = new CsrfGuard(options.formSecret);
  app.use(dashboardRouter(container, csrf));
  app.use(docsConsoleRouter(container, csrf));
  app.use(mountRoutes(allRoutes(container), authenticate(container.get(AuthenticateApiKey))));
  app.use(routeNotFound);
  app.use(problemHandler(options.logError ?? ((error) => console.error(error))));
  return app;
}
