import type { RequestHandler } from 'express';
import type { Route } from '../route';
import { sendAnswer } from '../send-answer';
import { buildOpenApiDocument } from './document';

/** GET /openapi.json: the document of the routes, built once when the app is. No key needed. */
export function serveOpenApi(routes: readonly Route[]): RequestHandler {
  const document = buildOpenApiDocument(routes);
  return (_req, res) => {
    sendAnswer(res, { status: 200, body: document });
  };
}
