import express, { type RequestHandler } from 'express';
import { Problem } from '../problem';

export const BODY_LIMIT = '64kb';

const parseJson = express.json({ limit: BODY_LIMIT, strict: false, type: ['application/json', 'application/*+json'] });

/**
 * Bodies must be JSON: a body of another media type is refused (415) instead of being read as
 * "no body". An empty body is fine for operations that take none.
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  const hasBody = req.get('transfer-encoding') !== undefined || Number(req.get('content-length') ?? 0) > 0;
  if (hasBody && !req.is(['application/json', 'application/*+json'])) {
    throw new Problem(415, 'unsupported_media_type', 'Send the body as JSON with `Content-Type: application/json`.', {}, {
      'Accept-Post': 'application/json',
    });
  }
  parseJson(req, res, next);
};
