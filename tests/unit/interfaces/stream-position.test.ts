import { TimeRange } from '../../../src/core/domain/time-range';
import type { StreamPosition } from '../../../src/core/use-cases/events/watch-events';
import {
  decodeStreamPosition,
  encodeStreamPosition,
  streamScope,
} from '../../../src/interfaces/http/event-stream/stream-position';
import { Problem } from '../../../src/interfaces/http/problem';

const DAY = TimeRange.parse('1600-01-01T00:00:00Z/1600-01-02T00:00:00Z');
const SCOPE = streamScope('acc_1', 'Globe Theatre', DAY);
const id = (fields: unknown[]) => Buffer.from(JSON.stringify(fields)).toString('base64url');

describe('stream positions as SSE ids', () => {
  it('reads back what it writes, for both parts, with the stream it belongs to', () => {
    const recorded: StreamPosition = {
      part: 'recorded',
      timelineId: 'primary',
      upTo: '7',
      after: { time: new Date(0), id: 'evt_1' },
    };
    const changes: StreamPosition = { part: 'changes', timelineId: 'primary', after: { version: '8', eventId: null } };
    for (const position of [recorded, changes])
      expect(decodeStreamPosition(encodeStreamPosition(position, SCOPE))).toEqual({ position, scope: SCOPE });
  });

  it('tells streams apart by account, place and range, and places as the listing compares them', () => {
    expect(streamScope('acc_1', '  globe   THEATRE ', DAY)).toBe(SCOPE);
    expect(streamScope('acc_2', 'Globe Theatre', DAY)).not.toBe(SCOPE);
    expect(streamScope('acc_1', 'Rose Theatre', DAY)).not.toBe(SCOPE);
    expect(
      streamScope('acc_1', 'Globe Theatre', TimeRange.parse('1600-01-01T00:00:00Z/1600-01-03T00:00:00Z')),
    ).not.toBe(SCOPE);
  });

  it('resumes ids written before they carried their stream, with no scope to check', () => {
    expect(decodeStreamPosition(id(['c', 'primary', '8', null]))).toEqual({
      position: { part: 'changes', timelineId: 'primary', after: { version: '8', eventId: null } },
      scope: null,
    });
    expect(decodeStreamPosition(id(['r', 'primary', '7', null, null])).scope).toBeNull();
  });

  it.each([
    ['a null scope', ['c', 'primary', '8', null, null]],
    ['a number for a scope', ['c', 'primary', '8', null, 12]],
    ['a scope of another length', ['c', 'primary', '8', null, 'short']],
    ['a null scope of the recorded part', ['r', 'primary', '7', null, null, null]],
    ['a field too many', ['c', 'primary', '8', null, SCOPE, SCOPE]],
  ])('refuses %s as not written by the service', (_name, fields) => {
    expect(() => decodeStreamPosition(id(fields))).toThrow(Problem);
  });
});
