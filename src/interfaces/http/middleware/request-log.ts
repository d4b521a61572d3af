import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

/**
 * One JSON line per request: method, path, status, duration, account and request id. Built from
 * chosen fields only, never from headers or bodies, so keys, passwords and cookies cannot appear.
 *
 * Written on pino directly rather than through pino-http: pino-http makes a child logger for
 * every request, which cost a sixth of the busy time of the cheapest request in the benchmark's
 * profile (docs/performance.md), and this line needs none of what it adds.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const path = req.originalUrl.split('?')[0];
    let written = false;
    const write = (msg: string) => {
      if (written) return;
      written = true;
      const status = res.statusCode;
      const line = {
        req: { method: req.method, path },
        res: { status },
        responseTime: Math.round(performance.now() - started),
        account_id: accountOf(res.locals),
        request_id: res.locals.requestId,
      };
      if (status >= 500) logger.error(line, msg);
      else logger.info(line, msg);
    };
    res.once('finish', () => write('request completed'));
    // The client went away before the answer was sent: still one line, so nothing goes unseen.
    res.once('close', () => write('request aborted'));
    next();
  };
}

function accountOf(locals: Record<string, unknown>): string | undefined {
  const principal = locals.principal;
  return typeof principal === 'object' && principal !== null && 'accountId' in principal && typeof principal.accountId === 'string'
    ? principal.accountId
    : undefined;
}
