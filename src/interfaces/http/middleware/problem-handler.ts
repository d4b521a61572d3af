import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { DomainError } from '../../../core/domain/errors';
import { PasswordWorkWithdrawn } from '../../../core/ports/password-work';
import { Problem } from '../problem';
import type { HttpResponse } from '../route';
import { sendAnswer } from '../send-answer';
import { localsOf } from '../answer-locals';
import type { DatabaseFailure, DatabaseFailureOf } from '../database-failure';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

/** The answer of a problem, as sent and as kept for an Idempotency-Key's retries. */
export function problemAnswer(problem: Problem, requestId: unknown): HttpResponse {
  // The request id ties an answer to its log line when a client reports a failure.
  const body = { ...problem.toJson(), request_id: requestId };
  return { status: problem.status, body, headers: { ...problem.headers, 'content-type': PROBLEM_CONTENT_TYPE } };
}

export function sendProblem(res: Response, problem: Problem): void {
  sendAnswer(res, problemAnswer(problem, localsOf(res).requestId));
}

export const routeNotFound: RequestHandler = (req) => {
  throw new Problem(404, 'route_not_found', `No operation is served at ${req.method} ${req.path}.`);
};

/**
 * The last stop of every failure: expected ones become their problem, a failure of the database
 * its 503, anything else a bare 500. `report` hears every failure that is not a problem the service
 * chose: an outage, a timeout, a fault (app.ts tells them apart).
 */
export function problemHandler(
  report: (error: unknown) => void,
  databaseFailureOf: DatabaseFailureOf = () => null,
): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    // Its client went away while its password work waited, which never ran: no one to answer, nothing failed.
    if (error instanceof PasswordWorkWithdrawn) return;
    const failure = databaseFailureOf(error);
    const problem = failure === null ? toProblem(error) : databaseProblem(failure);
    // The request's log line says why it failed; a whole error is logged only for a fault of the
    // service, not for a refusal it chose (a 503 of a process at its limit of streams, or of its
    // password work's pool).
    // (A domain error without a status in the table is a defect, answered 500, and logged.)
    const chosen = error instanceof Problem || (error instanceof DomainError && problem.status !== 500);
    if (failure !== null) localsOf(res).failureReason = databaseFailureReason(failure, error);
    else if (chosen && problem.status >= 500) localsOf(res).failureReason = problem.code;
    if (problem.status >= 500 && !chosen) report(error);
    sendProblem(res, problem);
  };
}

/** The `reason` of a request's log line for a failure of the database: its kind, then the database's words. */
export function databaseFailureReason(failure: DatabaseFailure, error: unknown): string {
  return `${failure === 'unavailable' ? 'database unavailable' : failure}: ${failureReason(error)}`;
}

/**
 * One line of an error's message for a log field: the last, which for Prisma's many-line messages
 * holds the database's own words, cut to 200 characters.
 */
export function failureReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const lines = message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return (lines.at(-1) ?? 'unknown failure').slice(0, 200);
}

/** Seconds a client should wait before retrying while the database is away, or after it gave up on a statement. */
export const RETRY_AFTER_SECONDS = 5;

function databaseProblem(failure: DatabaseFailure): Problem {
  return failure === 'unavailable' ? unavailable() : timedOut();
}

function unavailable(): Problem {
  return new Problem(
    503,
    'service_unavailable',
    'The database could not be reached or did not answer in time. Retry shortly; send writes with an ' +
      'Idempotency-Key, so a retry never applies one twice.',
    {},
    {
      'Retry-After': String(RETRY_AFTER_SECONDS),
    },
  );
}

/**
 * The database stopped the request's statement at its time bound: the request's own work took too
 * long, while the database serves the others (docs/decisions.md, "A statement past its bound").
 */
function timedOut(): Problem {
  return new Problem(
    503,
    'operation_timed_out',
    'The request took longer than the service allows its work in the database, and was stopped there. ' +
      'Retry shortly; send writes with an Idempotency-Key, so a retry never applies one twice.',
    {},
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  );
}

/** The problem an error is answered with, before a failure of the database is considered. */
export function toProblem(error: unknown): Problem {
  if (error instanceof Problem) return error;
  if (error instanceof DomainError) return Problem.fromDomain(error, retryAfterOf(error));
  switch (bodyParserFailure(error)) {
    case 'entity.parse.failed':
      return new Problem(400, 'malformed_json', 'The request body is not valid JSON.');
    case 'entity.too.large':
      return new Problem(413, 'payload_too_large', 'The request body is larger than the 64 KiB this API accepts.');
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new Problem(415, 'unsupported_media_type', 'Send the body as UTF-8 JSON.');
    case 'request.aborted':
    case 'request.size.invalid':
      return new Problem(400, 'malformed_json', 'The request body ended before its declared length.');
    default:
      // Express and its parsers mark client faults they detect (a malformed %-escape in the path)
      // with a 4xx status: those are the client's to fix, not a service failure.
      return (
        clientFault(error) ?? new Problem(500, 'internal_error', 'The service failed to answer; the failure is logged.')
      );
  }
}

/** A refusal that says when to come back (`retryAfterSeconds`) says it in `Retry-After` too. */
function retryAfterOf(error: DomainError): Record<string, string> {
  return 'retryAfterSeconds' in error && typeof error.retryAfterSeconds === 'number'
    ? { 'Retry-After': String(error.retryAfterSeconds) }
    : {};
}

function clientFault(error: unknown): Problem | null {
  if (typeof error !== 'object' || error === null || !('status' in error)) return null;
  const { status } = error;
  if (typeof status !== 'number' || status < 400 || status > 499) return null;
  // The router's decoding of a path parameter: a %-escape that is malformed or decodes to no UTF-8 text.
  if (error instanceof URIError) {
    return new Problem(
      400,
      'malformed_request',
      'The path could not be read: a %-escape in it is malformed or not valid UTF-8 once decoded.',
    );
  }
  return new Problem(400, 'malformed_request', 'The request could not be read: check the URL and its %-escapes.');
}

/** body-parser marks its own failures with a `type`; anything else is not a client's fault. */
function bodyParserFailure(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('type' in error)) return undefined;
  return typeof error.type === 'string' ? error.type : undefined;
}
