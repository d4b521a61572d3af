import { Router, type RequestHandler } from 'express';
import type { Principal } from '../../core/use-cases/accounts/authenticate-api-key';
import { jsonBody } from './middleware/json-body';
import { Problem } from './problem';
import type { Route } from './route';

/** Mounts transport-free routes on Express, with authentication first where a route needs it. */
export function mountRoutes(routes: readonly Route[], authenticate: RequestHandler): Router {
  const router = Router();
  for (const route of routes) {
    const chain: RequestHandler[] = route.authenticated ? [authenticate, jsonBody] : [jsonBody];
    router[route.method](route.path, ...chain, async (req, res) => {
      const principal: Principal | null = res.locals.principal ?? null;
      const params = Object.fromEntries(Object.entries(req.params).map(([name, value]) => [name, String(value)]));
      const answer = await route.invoke({ body: req.body, query: req.query, params }, principal);
      res.status(answer.status).set(answer.headers ?? {}).json(answer.body);
    });
  }
  for (const [path, methods] of methodsByPath(routes)) {
    const allow = [...methods, ...(methods.includes('GET') ? ['HEAD'] : [])].join(', ');
    router.all(path, (req) => {
      throw new Problem(405, 'method_not_allowed', `${req.method} is not allowed here; use ${allow}.`, {}, { Allow: allow });
    });
  }
  return router;
}

function methodsByPath(routes: readonly Route[]): Map<string, string[]> {
  const paths = new Map<string, string[]>();
  for (const route of routes) paths.set(route.path, [...(paths.get(route.path) ?? []), route.method.toUpperCase()]);
  return paths;
}
