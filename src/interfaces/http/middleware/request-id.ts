import { randomUUID } from 'node:crypto';
import type { RequestStep } from '../request-step';
import { localsOf } from '../answer-locals';

/** A caller's id is kept when it looks like one (so a trace crosses the proxy); anything else is replaced. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives every request an id: echoed in `X-Request-Id`, in every error body and in the log line. */
export const requestId: RequestStep = (req, res) => {
  const offered = req.headers['x-request-id'];
  const id = typeof offered === 'string' && ACCEPTABLE_ID.test(offered) ? offered : randomUUID();
  localsOf(res).requestId = id;
  res.setHeader('X-Request-Id', id);
};
