import type { Item } from '../../../src/core/domain/item';

export function anItem(overrides: Partial<Item> = {}): Item {
  return {
    accountId: 'acc_1',
    id: 'itm_1',
    description: 'A moon rock',
    location: 'Sea of Tranquility',
    timelineId: 'tml_1',
    registeredAt: new Date('2030-01-01T12:05:00Z'),
    foundAt: new Date('1969-07-20T21:00:00Z'),
    carriedHomeBy: null,
    ...overrides,
  };
}
