import type { Request, Response } from 'express';
import type { PasswordClient } from '../../core/ports/password-work';
import { localsOf } from './answer-locals';
import { clientOf } from './client-address';

/**
 * The client of a request that checks a password: its address, whose turn its password work
 * takes in the pool, where the pool says how long that work waited (the request's log line), and
 * a signal that it went away before its answer, which drops its work still waiting.
 */
export function passwordClientOf(req: Request, res: Response): PasswordClient {
  const gone = new AbortController();
  // 'close' comes once per answer: right after 'finish' when it was sent, alone when cut short.
  const closed = () => {
    if (!res.writableFinished) gone.abort();
  };
  if (res.closed) closed();
  else res.once('close', closed);
  return {
    clientGone: gone.signal,
    clientAddress: clientOf(req.ip),
    onPasswordWait: (waitedMs) => {
      const locals = localsOf(res);
      locals.passwordWaitMs = Math.round((locals.passwordWaitMs ?? 0) + waitedMs);
    },
  };
}
