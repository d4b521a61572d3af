import type { TimelineCursor } from '../../core/ports/repositories';
import { Problem } from './problem';

/** Cursors are opaque to clients: base64url of `<created_at ms>:<id>`, so paging can change inside. */
export function encodeTimelineCursor(cursor: TimelineCursor): string {
  return Buffer.from(`${cursor.createdAt.getTime()}:${cursor.id}`).toString('base64url');
}

export function decodeTimelineCursor(text: string): TimelineCursor {
  const [ms, ...rest] = Buffer.from(text, 'base64url').toString('utf8').split(':');
  const id = rest.join(':');
  const createdAt = new Date(Number(ms));
  if (!/^\d+$/.test(ms ?? '') || !id || Number.isNaN(createdAt.getTime())) {
    throw Problem.validation([{ field: 'cursor', message: 'cursor must be a next_cursor value from a previous page' }]);
  }
  return { createdAt, id };
}
