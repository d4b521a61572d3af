import { createHash } from 'node:crypto';
import { withinRange } from '../../../core/domain/date-time';
import { textKey } from '../../../core/domain/text-key';
import type { TimeRange } from '../../../core/domain/time-range';
import type { StreamPosition } from '../../../core/use-cases/events/watch-events';
import { Problem } from '../problem';

/**
 * A stream's position as the SSE `id` of each message, which a client sends back as
 * `Last-Event-ID` when it reconnects: base64url of a JSON array, opaque to clients and complete,
 * so any process resumes it without remembering the stream.
 * - the recorded part: `["r", timeline, upTo, ms, event, scope]` (ms and event null before the first)
 * - the changes: `["c", timeline, version, event, scope]` (event null: after the whole version)
 *
 * `scope` is what the stream watches (streamScope): a position means nothing for another account,
 * place or range, so resuming one there is refused rather than silently skipping what came before it.
 */
export function encodeStreamPosition(position: StreamPosition, scope: string): string {
  const fields =
    position.part === 'recorded'
      ? ['r', position.timelineId, position.upTo, position.after?.time.getTime() ?? null, position.after?.id ?? null]
      : ['c', position.timelineId, position.after.version, position.after.eventId];
  return Buffer.from(JSON.stringify([...fields, scope])).toString('base64url');
}

/** A position sent back, with the scope of the stream that wrote it (null in ids written without one). */
export interface ResumePoint {
  readonly position: StreamPosition;
  readonly scope: string | null;
}

/**
 * What a stream watches, as its ids carry it: a short digest of the account, the place, compared
 * as places are (textKey), and the range's instants.
 */
export function streamScope(accountId: string, place: string, range: TimeRange): string {
  return createHash('sha256')
    .update(`${accountId}\n${textKey(place)}\n${range.start.getTime()}/${range.end.getTime()}`)
    .digest('base64url')
    .slice(0, SCOPE_LENGTH);
}

/** 96 bits: two different places or ranges never share one by chance. */
const SCOPE_LENGTH = 16;

const VERSION = /^\d{1,19}$/;
/** The highest version PostgreSQL's bigint holds: one above would fail the statement, not the request. */
const MAX_VERSION = 9223372036854775807n;
const MAX_ID_LENGTH = 200;
const MAX_TOKEN_LENGTH = 1_000;

/** The position a `Last-Event-ID` names; a 400 problem when it is not one this service wrote. */
export function decodeStreamPosition(text: string): ResumePoint {
  const fields = text.length <= MAX_TOKEN_LENGTH ? parse(text) : null;
  const resumed = Array.isArray(fields) ? resumePointOf(fields) : null;
  if (!resumed) {
    throw Problem.validation([
      { field: 'Last-Event-ID', message: "must be the id of a message of this operation's event stream" },
    ]);
  }
  return resumed;
}

/** Ids written before streams carried their scope end at the position: those are resumed unchecked. */
function resumePointOf(fields: unknown[]): ResumePoint | null {
  const scoped = fields.length === (fields[0] === 'r' ? 6 : 5);
  if (!scoped) {
    const position = positionOf(fields);
    return position && { position, scope: null };
  }
  const scope = fields.at(-1);
  if (!(typeof scope === 'string' && scope.length === SCOPE_LENGTH)) return null;
  const position = positionOf(fields.slice(0, -1));
  return position && { position, scope };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
}

function positionOf(fields: unknown[]): StreamPosition | null {
  const [part, timelineId, version, ...rest] = fields;
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
