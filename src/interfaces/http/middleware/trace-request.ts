import {
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import type { Request, RequestHandler, Response } from 'express';
import { answeredStatus, errorTypeOf, methodOf, routeOf, schemeOf } from './http-semantics';
import { localsOf } from '../answer-locals';
import { traceLogFields } from '../../../trace-log-fields';

/**
 * The server span of each request, by OpenTelemetry's HTTP conventions: it continues the trace of
 * an incoming W3C `traceparent` (with its `tracestate`), or starts one; everything the request does
 * runs in its context, so the use case's span and the statements' are its children. Named
 * `GET /timeline/:id` once the route is known. The request's log line carries its ids and flags
 * (`traceIds` of the request's locals, read by request-log.ts).
 */
export function traceRequests(tracer: Tracer): RequestHandler {
  return (req, res, next) => {
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const method = methodOf(req);
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER }, parent);
    localsOf(res).traceIds = traceLogFields(span.spanContext());
    // An unsampled request's span records nothing: its attributes and its end would be work for
    // nothing, on most requests at a low sampling ratio (docs/performance.md).
    if (span.isRecording()) {
      describeRequest(span, req, method);
      res.once('close', () => endRequest(span, req, res, method));
    }
    context.with(trace.setSpan(parent, span), next);
  };
}

function describeRequest(span: Span, req: Request, method: string): void {
  span.setAttributes({
    [ATTR_HTTP_REQUEST_METHOD]: method,
    [ATTR_URL_PATH]: pathOf(req.originalUrl),
    [ATTR_URL_SCHEME]: schemeOf(req),
    [ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersion,
    // As the request log: the address `trust proxy` (TRUST_PROXY) resolves.
    ...(req.ip !== undefined && { [ATTR_CLIENT_ADDRESS]: req.ip }),
    ...(req.headers['user-agent'] !== undefined && { [ATTR_USER_AGENT_ORIGINAL]: req.headers['user-agent'] }),
  });
}

/**
 * The URL's path, a string of its own when the URL has a query: V8 makes a slice of 13 characters
 * or more a view into the whole string, and the span, waiting in its queue for an export, would
 * keep the whole URL (a client's query of many KB) alive. The request's text is Latin-1, a
 * character a byte, as Node's HTTP parser reads it.
 */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : Buffer.from(url.slice(0, query), 'latin1').toString('latin1');
}

function endRequest(span: Span, req: Request, res: Response, method: string): void {
  const route = routeOf(req);
  if (route !== '') {
    span.setAttribute(ATTR_HTTP_ROUTE, route);
    span.updateName(`${method} ${route}`);
  }
  const status = answeredStatus(res);
  if (status !== null) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  const errorType = errorTypeOf(status);
  if (errorType !== undefined) span.setAttribute(ATTR_ERROR_TYPE, errorType);
  // A server span fails on a 5xx only: a 4xx is the client's (OpenTelemetry's HTTP conventions).
  if (status !== null && status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
