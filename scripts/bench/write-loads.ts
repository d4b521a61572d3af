// The benchmark's write loads, one definition for `npm run bench` and `npm run bench:failover`:
// each request written by the next of `rotate`'s accounts in turn.
import type { Load } from './measure';
import { ANCHORS, KEYED_ANCHORS } from './report';

export function writeLoads(rotate: readonly string[]): {
  readonly anchors: Load;
  readonly keyedAnchors: Load;
  readonly fastForward: Load;
} {
  const anchors: Load = {
    name: ANCHORS,
    method: 'POST',
    path: '/v1/anchors',
    rotate,
    body: { description: 'Bench anchor' },
  };
  return {
    anchors,
    keyedAnchors: { ...anchors, name: KEYED_ANCHORS, freshHeader: 'idempotency-key' },
    fastForward: {
      name: 'POST /v1/fast-forward',
      method: 'POST',
      path: '/v1/fast-forward',
      rotate,
      body: { duration: '1m' },
    },
  };
}
