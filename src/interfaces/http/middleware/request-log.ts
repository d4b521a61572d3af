import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';

/**
 * One JSON line per request: method, path, status, duration, account and request id. Built from
 * chosen fields only, never from headers or bodies, so keys, passwords and cookies cannot appear.
 */
export function requestLog(logger: Logger): RequestHandler {
  return pinoHttp<Request, Response>({
    logger,
    genReqId: (_req, res) => String(res.locals.requestId),
    quietReqLogger: true,
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, path: req.url.split('?')[0] }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    customProps: (_req, res) => ({ account_id: accountOf(res.locals), request_id: res.locals.requestId }),
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
  });
}

function accountOf(locals: Record<string, unknown>): string | undefined {
  const principal = locals.principal;
  return typeof principal === 'object' && principal !== null && 'accountId' in principal && typeof principal.accountId === 'string'
    ? principal.accountId
    : undefined;
}
