import {
  isAdmissionAnswer,
  isAdmissionAsk,
  isMetricsAnswer,
  isMetricsAsk,
  isShutdownRequest,
  isStoppedAccepting,
} from '../../../src/cluster/messages';

const guards = {
  isShutdownRequest,
  isMetricsAsk,
  isAdmissionAnswer,
  isStoppedAccepting,
  isMetricsAnswer,
  isAdmissionAsk,
};

/** One message of each kind, and the one guard that should take it. */
const messages: ReadonlyArray<[keyof typeof guards, unknown]> = [
  ['isShutdownRequest', { type: 'shutdown', signal: 'SIGTERM' }],
  ['isMetricsAsk', { type: 'metrics-ask', id: 1 }],
  ['isAdmissionAnswer', { type: 'admission', id: 1, entry: 'refused', refusal: 'busy' }],
  ['isStoppedAccepting', { type: 'stopped-accepting' }],
  ['isMetricsAnswer', { type: 'metrics', id: 1, failed: 'collect() threw' }],
  ['isAdmissionAsk', { type: 'admission', op: 'enter', id: 1, accountId: 'a', cost: { cost: 1, weight: 1 } }],
];

describe('the cluster messages', () => {
  it.each(messages)('%s takes its message and no other guard does', (guard, message) => {
    const taking = Object.entries(guards)
      .filter(([, isIt]) => isIt(message))
      .map(([name]) => name);
    expect(taking).toEqual([guard]);
  });

  it.each([
    null,
    'shutdown',
    { type: 'shutdown' },
    { type: 'metrics-ask' },
    { type: 'admission', id: '1', op: 'enter' },
  ])('takes none of the malformed %p', (message) => {
    expect(Object.values(guards).filter((isIt) => isIt(message))).toEqual([]);
  });
});
