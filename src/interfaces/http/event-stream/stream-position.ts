import { withinRange } from '../../../core/domain/date-time';
import type { StreamPosition } from '../../../core/use-cases/events/watch-events';
import { Problem } from '../problem';

/**
 * A stream's position as the SSE `id` of each message, which a client sends back as
 * `Last-Event-ID` when it reconnects: base64url of a JSON array, opaque to clients and complete,
 * so any process resumes it without remembering the stream.
 * - the recorded part: `["r", timeline, upTo, ms, event]` (ms and event null before the first)
 * - the changes: `["c", timeline, version, event]` (event null: after the whole version)
 */
export function encodeStreamPosition(position: StreamPosition): string {
  const fields =
    position.part === 'recorded'
      ? ['r', position.timelineId, position.upTo, position.after?.time.getTime() ?? null, position.after?.id ?? null]
      : ['c', position.timelineId, position.after.version, position.after.eventId];
  return Buffer.from(JSON.stringify(fields)).toString('base64url');
}

const VERSION = /^\d{1,19}$/;
/** The highest version PostgreSQL's bigint holds: one above would fail the statement, not the request. */
const MAX_VERSION = 9223372036854775807n;
const MAX_ID_LENGTH = 200;
const MAX_TOKEN_LENGTH = 1_000;

/** The position a `Last-Event-ID` names; a 400 problem when it is not one this service wrote. */
export function decodeStreamPosition(text: string): StreamPosition {
  const fields = text.length <= MAX_TOKEN_LENGTH ? parse(text) : null;
  const position = fields === null ? null : positionOf(fields);
  if (!position) {
    throw Problem.validation([
      { field: 'Last-Event-ID', message: "must be the id of a message of this operation's event stream" },
    ]);
  }
  return position;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
}

function positionOf(fields: unknown): StreamPosition | null {
  if (!Array.isArray(fields)) return null;
  const [part, timelineId, version, ...rest] = fields as unknown[];
  if (!isId(timelineId) || !isVersion(version)) return null;
  if (part === 'c' && rest.length === 1) {
    const [eventId] = rest;
    if (eventId !== null && !isId(eventId)) return null;
    return { part: 'changes', timelineId, after: { version, eventId } };
  }
  if (part === 'r' && rest.length === 2) {
    const [ms, eventId] = rest;
    if (ms === null && eventId === null) return { part: 'recorded', timelineId, upTo: version, after: null };
    if (!Number.isSafeInteger(ms) || !isId(eventId)) return null;
    const time = new Date(ms as number);
    if (!withinRange(time)) return null;
    return { part: 'recorded', timelineId, upTo: version, after: { time, id: eventId } };
  }
  return null;
}

function isVersion(value: unknown): value is string {
  return typeof value === 'string' && VERSION.test(value) && BigInt(value) <= MAX_VERSION;
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_ID_LENGTH && !value.includes('\u0000');
}
