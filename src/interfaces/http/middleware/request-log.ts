import type { Logger } from 'pino';
import type { RequestStep } from '../request-step';
import { localsOf } from '../answer-locals';

/**
 * One JSON line per request: method, path, client address, status, duration, account and request
 * id. Built from
 * chosen fields only, never from headers or bodies, so keys, passwords and cookies cannot appear.
 *
 * Written on pino directly rather than through pino-http: pino-http makes a child logger for
 * every request, which cost a sixth of the busy time of the cheapest request in the benchmark's
 * profile (docs/performance.md), and this line needs none of what it adds.
 */
export function requestLog(logger: Logger): RequestStep {
  return (req, res) => {
    const started = performance.now();
    const query = req.originalUrl.indexOf('?');
    const path = query < 0 ? req.originalUrl : req.originalUrl.slice(0, query);
    // Read now: once a client has left (a stream it closed, a request it gave up on), its socket
    // no longer says where it came from.
    const remoteAddress = req.ip;
    // 'close' comes once per answer, right after 'finish' when the answer was sent, alone when the
    // client went away first: one listener tells both apart, so nothing goes unseen.
    res.once('close', () => {
      const completed = res.writableFinished;
      // Answered by the HTTP server instead (its body timed out: client-errors.ts), with this status.
      const locals = localsOf(res);
      const refused = locals.refusedStatus ?? null;
      // An answer never started has no status (res.statusCode would say a misleading 200).
      const status = completed || res.headersSent ? res.statusCode : refused;
      const line = {
        // The client's address as `trust proxy` resolves it (TRUST_PROXY): behind the proxy, the
        // address the proxy saw; a client's own X-Forwarded-For counts only from trusted hops.
        req: { method: req.method, path, remoteAddress },
        res: { status },
        responseTime: Math.round(performance.now() - started),
        account_id: locals.principal?.accountId,
        // The key it authenticated with, and the permission that key lacked when it was refused one.
        key_id: locals.principal?.apiKeyId,
        permission: locals.permissionRefused,
        request_id: locals.requestId,
        // The problem answered, if any: which of the refusals of one status it was.
        code: locals.problemCode,
        // The rate limit that refused it, by its policy's name (`anonymous`, `accounts`, ...).
        rate_limit: locals.limitRefused,
        // Why a request failed when the service can say it in a line (the database was unavailable).
        reason: locals.failureReason,
        // The answer kept for an earlier request with its Idempotency-Key, sent again.
        replayed: locals.replayed,
        // How long the operation waited for its turn among its account's requests (its pace included).
        turn_wait_ms: locals.turnWaitMs,
        // How often an event stream's catch-up waited for its account's rate limit.
        catch_up_waits: locals.catchUpWaits,
        // How long its password work waited for a thread of the password pool, in its client's turn.
        password_wait_ms: locals.passwordWaitMs,
        // The request's trace (trace-request.ts), when tracing is on.
        ...locals.traceIds,
      };
      const msg = completed ? 'request completed' : refused !== null ? 'request refused' : 'request aborted';
      // An event stream ends when either side ends it, its client's leaving included: not an abort.
      if (locals.eventStream === true) logger.info(line, 'event stream ended');
      // A 503 is a passing condition outside the service (its database), logged once as such.
      else if (status !== null && status >= 500 && status !== 503) logger.error(line, msg);
      else if ((completed || refused !== null) && status !== 503) logger.info(line, msg);
      else logger.warn(line, msg);
    });
  };
}
