import { assessStability, normaliseEventName, type ProposedChange } from '../../../src/core/domain/paradox';

const event = (name: string, time: string): ProposedChange => ({ kind: 'event', event: name, time: new Date(time) });
const item = (itemId: string): ProposedChange => ({ kind: 'item', itemId });

describe('assessStability', () => {
  it('finds a timeline with no proposed changes stable', () => {
    expect(assessStability([])).toEqual({ stable: true, reasons: [] });
  });

  it('finds distinct events at distinct times stable', () => {
    const verdict = assessStability([
      event('Eagle lands', '1969-07-20T20:17:40Z'),
      event('First step', '1969-07-21T02:56:15Z'),
    ]);
    expect(verdict).toEqual({ stable: true, reasons: [] });
  });

  it('finds the same event proposed twice at the same time stable', () => {
    const verdict = assessStability([event('Eagle lands', '1969-07-20T20:17:40Z'), event('Eagle lands', '1969-07-20T20:17:40Z')]);
    expect(verdict).toEqual({ stable: true, reasons: [] });
  });

  it('finds the same event at two times unstable, naming the event and both times in order', () => {
    const verdict = assessStability([
      event('Eagle lands', '1969-07-20T21:00:00Z'),
      event('Eagle lands', '1969-07-20T20:17:40Z'),
    ]);
    expect(verdict.stable).toBe(false);
    expect(verdict.reasons).toEqual([
      {
        code: 'event_at_two_times',
        message: "The event 'Eagle lands' is proposed at 2 different times; an event can happen only once.",
        event: 'Eagle lands',
        times: [new Date('1969-07-20T20:17:40Z'), new Date('1969-07-20T21:00:00Z')],
      },
    ]);
  });

  it('compares event names ignoring case and surrounding or repeated white space', () => {
    const verdict = assessStability([
      event('  Eagle   lands ', '1969-07-20T20:17:40Z'),
      event('EAGLE LANDS', '1969-07-20T21:00:00Z'),
    ]);
    expect(verdict.stable).toBe(false);
    expect(verdict.reasons).toHaveLength(1);
    expect(verdict.reasons[0]?.times).toEqual([new Date('1969-07-20T20:17:40Z'), new Date('1969-07-20T21:00:00Z')]);
  });

  it('gives one reason per event proposed at several times', () => {
    const verdict = assessStability([
      event('Eagle lands', '1969-07-20T20:17:40Z'),
      event('Eagle lands', '1969-07-20T21:00:00Z'),
      event('Eagle lands', '1969-07-20T22:00:00Z'),
      event('First step', '1969-07-21T02:56:15Z'),
      event('First step', '1969-07-21T03:00:00Z'),
    ]);
    expect(verdict.stable).toBe(false);
    expect(verdict.reasons.map((reason) => [reason.event, reason.times.length])).toEqual([
      ['Eagle lands', 3],
      ['First step', 2],
    ]);
  });

  it('is not affected by item changes', () => {
    const events = [event('Eagle lands', '1969-07-20T20:17:40Z')];
    expect(assessStability([...events, item('itm_1'), item('itm_1'), item('itm_2')])).toEqual(assessStability(events));
    expect(assessStability([item('itm_1'), item('itm_1')])).toEqual({ stable: true, reasons: [] });
  });

  it('is not made stable by item changes either', () => {
    const verdict = assessStability([
      event('Eagle lands', '1969-07-20T20:17:40Z'),
      item('itm_1'),
      event('Eagle lands', '1969-07-20T21:00:00Z'),
    ]);
    expect(verdict.stable).toBe(false);
  });
});

describe('normaliseEventName', () => {
  it('trims, collapses white space and lower-cases', () => {
    expect(normaliseEventName('  The\tEagle \n  LANDS  ')).toBe('the eagle lands');
  });
});
