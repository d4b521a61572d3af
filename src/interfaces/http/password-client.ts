import type { Request, Response } from 'express';
import type { PasswordClient } from '../../core/ports/password-work';
import { localsOf } from './answer-locals';
import { clientOf } from './client-address';

/**
 * The client of a request that checks a password: its address, whose turn its password work
 * takes in the pool, and where the pool says how long that work waited (the request's log line).
 */
export function passwordClientOf(req: Request, res: Response): PasswordClient {
  return {
    clientAddress: clientOf(req.ip),
    onPasswordWait: (waitedMs) => {
      const locals = localsOf(res);
      locals.passwordWaitMs = Math.round((locals.passwordWaitMs ?? 0) + waitedMs);
    },
  };
}
