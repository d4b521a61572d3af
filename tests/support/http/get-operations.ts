import { ALL_TIME, type AccountClient } from './as-account';

/** A GET of Families A or C: parameters that succeed, and one of them with another value that also would. */
export type GetOperation = [path: string, parameters: () => Record<string, string>, name: string, other: string];

/**
 * Every GET of Families A and C that takes parameters, for an account that ran `retrieveTheLamp`;
 * `retrievalId` gives that retrieval's event id once it is known (after the tests' set-up).
 */
export function getOperations(retrievalId: () => string): GetOperation[] {
  return [
    ['/v1/monitor-events', () => ({ location: 'Baghdad', time_range: ALL_TIME }), 'location', 'Basra'],
    [
      '/v1/retrieve-item',
      () => ({ item_description: 'Lamp', location: 'Baghdad', time: '0800-01-01T00:00:00Z' }),
      'time',
      '0801-01-01T00:00:00Z',
    ],
    ['/v1/check-paradox', () => ({ timeline_id: 'primary' }), 'timeline_id', 'tml_ffffffffffffffffffffffffffffffff'],
    [
      '/api/v1/monitor-paradox',
      () => ({ timeline_id: 'primary', time_range: ALL_TIME }),
      'time_range',
      '2000-01-01T00:00:00Z/2001-01-01T00:00:00Z',
    ],
    [
      '/api/v1/check-timeline',
      () => ({ timeline_id: 'primary', significant_event: retrievalId() }),
      'significant_event',
      'Item retrieved: Lamp',
    ],
  ];
}

/** Retrieves the Lamp at Baghdad in 800 and answers the id of the event that records it. */
export async function retrieveTheLamp(a: AccountClient): Promise<string> {
  const retrieval = await a.get('/v1/retrieve-item', {
    item_description: 'Lamp',
    location: 'Baghdad',
    time: '0800-01-01T00:00:00Z',
  });
  if (retrieval.status !== 200)
    throw new Error(`retrieve-item answered ${retrieval.status}: ${JSON.stringify(retrieval.body)}`);
  const scan = await a.post('/api/v1/scan-events', { location: 'Baghdad', time_range: ALL_TIME });
  return scan.body.events[0].event_id;
}
