// The order of the password work that waits: client addresses in turn, the device-cookie lane
// first, and a bound that one address cannot fill alone.
import { FairTurns, type Lane } from '../../../src/infrastructure/passwords/fair-turns';

/** Offers `items` (`address:n`) in order, as work that found every thread busy. */
function offerAll(turns: FairTurns<string>, items: readonly string[], lane: Lane = 'in_turn') {
  return items.map((item) => turns.offer(item, item.split(':')[0] ?? '', lane));
}

/** Starts what waits, one after another, each ending before the next: the order a single thread takes. */
function startOrder(turns: FairTurns<string>): string[] {
  const order: string[] = [];
  for (let next = turns.next(); next; next = turns.next()) {
    order.push(next.item);
    turns.finished(next.address);
  }
  return order;
}

it('serves the addresses in turn, each its oldest first, whatever one address sent', () => {
  const turns = new FairTurns<string>(100);
  offerAll(turns, ['a:1', 'a:2', 'a:3', 'a:4', 'b:1', 'c:1', 'b:2']);
  expect(startOrder(turns)).toEqual(['a:1', 'b:1', 'c:1', 'a:2', 'b:2', 'a:3', 'a:4']);
});

it('puts an address whose work is running behind the addresses that have not had a turn', () => {
  const turns = new FairTurns<string>(100);
  // a:1 found a thread free and runs; a's next, then b's, wait.
  turns.started('a');
  offerAll(turns, ['a:2', 'b:1']);
  const first = turns.next();
  expect(first?.item).toBe('b:1');
  expect(turns.busy('a')).toBe(true);
  turns.finished('a');
  if (first) turns.finished(first.address);
  expect(startOrder(turns)).toEqual(['a:2']);
  // Nothing of a runs or waits: a is new again.
  expect(turns.busy('a')).toBe(false);
});

it('starts the work of browsers holding their device cookie first, by address in turn among them', () => {
  const turns = new FairTurns<string>(100);
  offerAll(turns, ['a:1', 'a:2', 'b:1']);
  offerAll(turns, ['k:1', 'k:2', 'm:1'], 'known_device');
  expect(startOrder(turns)).toEqual(['k:1', 'm:1', 'k:2', 'a:1', 'b:1', 'a:2']);
});

it('holds at most its bound in each lane, and refuses more from the address holding most', () => {
  const turns = new FairTurns<string>(3);
  const admitted = offerAll(turns, ['a:1', 'a:2', 'a:3', 'a:4']);
  expect(admitted.map((admission) => admission.admitted)).toEqual([true, true, true, false]);
  expect(turns.size).toBe(3);
  // The other lane has a bound of its own.
  expect(offerAll(turns, ['k:1'], 'known_device')[0]).toEqual({ admitted: true, displaced: null });
  expect(turns.size).toBe(4);
});

it("takes in another address's work in place of the newest of the address holding most", () => {
  const turns = new FairTurns<string>(3);
  offerAll(turns, ['a:1', 'a:2', 'a:3']);
  expect(offerAll(turns, ['b:1'])[0]).toEqual({ admitted: true, displaced: 'a:3' });
  expect(offerAll(turns, ['c:1'])[0]).toEqual({ admitted: true, displaced: 'a:2' });
  // Each holds one now: a fourth address waits for room like the others.
  expect(offerAll(turns, ['d:1'])[0]).toEqual({ admitted: false });
  expect(startOrder(turns)).toEqual(['a:1', 'b:1', 'c:1']);
});

it('lets nothing wait with a bound of 0', () => {
  const turns = new FairTurns<string>(0);
  expect(offerAll(turns, ['a:1'])[0]).toEqual({ admitted: false });
  expect(offerAll(turns, ['k:1'], 'known_device')[0]).toEqual({ admitted: false });
});

it('takes out work that still waits when withdrawn, and not work that has started', () => {
  const turns = new FairTurns<string>(100);
  offerAll(turns, ['a:1', 'a:2', 'b:1']);
  expect(turns.withdraw('a:2', 'a', 'in_turn')).toBe(true);
  expect(turns.size).toBe(2);
  const first = turns.next();
  expect(first?.item).toBe('a:1');
  expect(turns.withdraw('a:1', 'a', 'in_turn')).toBe(false);
  expect(turns.withdraw('b:1', 'b', 'known_device')).toBe(false);
  expect(turns.size).toBe(1);
  expect(turns.withdraw('b:1', 'b', 'in_turn')).toBe(true);
  // b had nothing else: it is new again, so it is not busy.
  expect(turns.busy('b')).toBe(false);
  expect(turns.next()).toBeNull();
});

it('gives back everything that waits when drained, and forgets the addresses with nothing running', () => {
  const turns = new FairTurns<string>(10);
  turns.started('a');
  offerAll(turns, ['a:2', 'b:1']);
  offerAll(turns, ['k:1'], 'known_device');
  expect(turns.drain().sort()).toEqual(['a:2', 'b:1', 'k:1']);
  expect(turns.size).toBe(0);
  expect(turns.busy('a')).toBe(true);
  expect(turns.busy('b')).toBe(false);
});
