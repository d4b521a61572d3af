import { withinRange } from '../../core/domain/date-time';
import type { EventCursor } from '../../core/ports/repositories';
import type { WebhookAttemptCursor } from '../../core/ports/webhook-deliveries';
import { Problem } from './problem';

/**
 * Paging cursors are opaque to clients: base64url of `<ms>:<id>`, the position after which the next
 * page starts (lists are ordered by an instant, then by id).
 */
export function encodeCursor(at: Date, id: string): string {
  return Buffer.from(`${at.getTime()}:${id}`).toString('base64url');
}

export function decodeCursor(text: string): { at: Date; id: string } {
  const [ms = '', ...rest] = Buffer.from(text, 'base64url').toString('utf8').split(':');
  const id = rest.join(':');
  const at = new Date(Number(ms));
  if (!/^-?\d+$/.test(ms) || !id || id.length > 200 || id.includes('\u0000') || !withinRange(at)) {
    throw notACursor();
  }
  return { at, id };
}

/** A page's cursor, for a listing ordered by creation then id, as the client sent it (`cursor`), or null. */
export function creationCursorOf(text: string | undefined): { createdAt: Date; id: string } | null {
  if (text === undefined) return null;
  const { at, id } = decodeCursor(text);
  return { createdAt: at, id };
}

/** The `next_cursor` of a page of a listing ordered by creation then id. */
export function nextCreationCursor(next: { readonly createdAt: Date; readonly id: string } | null): string | null {
  return next && encodeCursor(next.createdAt, next.id);
}

/** An event page's cursor as the client sent it (`cursor`), or null for the first page. */
export function eventCursorOf(text: string | undefined): EventCursor | null {
  if (text === undefined) return null;
  const { at, id } = decodeCursor(text);
  return { time: at, id };
}

/** The `next_cursor` of an event page. */
export function nextEventCursor(next: EventCursor | null): string | null {
  return next && encodeCursor(next.time, next.id);
}

/** A deliveries page's cursor as the client sent it: the instant, then `<message id>/<attempt>`. */
export function deliveryCursorOf(text: string | undefined): WebhookAttemptCursor | null {
  if (text === undefined) return null;
  const { at, id } = decodeCursor(text);
  const match = /^(msg_[0-9a-f]{32})\/([1-9]\d{0,8})$/.exec(id);
  if (!match?.[1] || !match[2]) throw notACursor();
  return { attemptedAt: at, messageId: match[1], attempt: Number(match[2]) };
}

/** The `next_cursor` of a deliveries page. */
export function nextDeliveryCursor(next: WebhookAttemptCursor | null): string | null {
  return next && encodeCursor(next.attemptedAt, `${next.messageId}/${next.attempt}`);
}

const notACursor = () =>
  Problem.validation([{ field: 'cursor', message: 'cursor must be a next_cursor value from a previous page' }]);
