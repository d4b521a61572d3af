import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

/** A caller's id is kept when it looks like one (so a trace crosses the proxy); anything else is replaced. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives every request an id: echoed in `X-Request-Id`, in every error body and in the log line. */
export const requestId: RequestHandler = (req, res, next) => {
  const offered = req.get('x-request-id');
  const id = offered !== undefined && ACCEPTABLE_ID.test(offered) ? offered : randomUUID();
  res.locals.requestId = id;
  res.set('X-Request-Id', id);
  next();
};
