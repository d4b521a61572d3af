import { recordEvent, type TimelineEvent } from '../../../src/core/domain/timeline-event';

/**
 * An event of account `acc_1` as first recorded (revision 0, time = original time): an item
 * retrieved on the Moon landing timeline. Override `time` alone to build a displaced event.
 */
export function anEvent(overrides: Partial<TimelineEvent> = {}): TimelineEvent {
  const recorded = recordEvent({
    accountId: 'acc_1',
    id: 'evt_1',
    timelineId: 'tml_1',
    kind: 'item_retrieved',
    time: new Date('1969-07-20T21:00:00Z'),
    description: 'Item retrieved: A moon rock',
    location: 'Sea of Tranquility',
    subjectId: 'itm_1',
    now: new Date('2030-01-01T12:05:00Z'),
  });
  return { ...recorded, ...overrides };
}
