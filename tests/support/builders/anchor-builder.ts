import type { Anchor } from '../../../src/core/domain/anchor';

export function anAnchor(overrides: Partial<Anchor> = {}): Anchor {
  return {
    accountId: 'acc_1',
    id: 'anc_1',
    timestamp: new Date('2030-01-01T11:00:00Z'),
    description: 'Before leaving',
    timelineId: 'primary',
    location: 'home',
    createdAt: new Date('2030-01-01T11:00:00Z'),
    ...overrides,
  };
}
