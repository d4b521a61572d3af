import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import express from 'express';
import { Problem } from '../problem';
import type { RequestStep } from '../request-step';
import { unsafeJson } from '../validation/untrusted-json';

export const BODY_LIMIT = '64kb';

/**
 * JSON is UTF-8 (RFC 8259, section 8.1). The parser would decode a stray byte as U+FFFD and the
 * text would be stored changed, so a body that is not UTF-8 is refused before it is parsed.
 */
function refuseInvalidUtf8(_req: IncomingMessage, _res: unknown, raw: Buffer, encoding: string): void {
  // The parser would also decode UTF-16, UTF-32 and UTF-7, turning their faults into U+FFFD too.
  if (encoding.toLowerCase() !== 'utf-8') {
    throw new Problem(
      415,
      'unsupported_media_type',
      `JSON is sent as UTF-8, not ${encoding}: send the body with \`Content-Type: application/json\`.`,
      {},
      { 'Accept-Post': 'application/json' },
    );
  }
  if (!isUtf8(raw)) {
    throw new Problem(
      400,
      'malformed_json',
      'The request body is not valid UTF-8, which JSON must be: send its text encoded as UTF-8.',
    );
  }
}

const parseJson = express.json({
  limit: BODY_LIMIT,
  strict: false,
  type: ['application/json', 'application/*+json'],
  verify: refuseInvalidUtf8,
});

/**
 * Bodies must be JSON: a body of another media type is refused (415) instead of being read as
 * "no body". An empty body is fine for operations that take none, and leaves `req.body` undefined
 * without calling the parser (most requests are GETs without one). A parsed body that no step may
 * walk (nested too deep, NUL, lone surrogates) is refused here, before anything recursive reads it:
 * the Idempotency-Key digest serializes the body before validation runs.
 */
export const jsonBody: RequestStep = (req, res) => {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (!hasBody) return;
  if (!req.is(['application/json', 'application/*+json'])) {
    throw new Problem(
      415,
      'unsupported_media_type',
      'Send the body as JSON with `Content-Type: application/json`.',
      {},
      {
        'Accept-Post': 'application/json',
      },
    );
  }
  return new Promise<void>((resolve, reject) => {
    parseJson(req, res, (error?: unknown) => {
      if (error) return reject(error);
      const unsafe = unsafeJson(req.body);
      return unsafe ? reject(Problem.validation([unsafe])) : resolve();
    });
  });
};
