// A request's weight in the instance's fair share, read before it runs.
import { weightClassOf, weightOf } from '../../../../src/interfaces/http/admission/request-weights';

const requestWith = (parts: { body?: unknown; query?: Record<string, string> }) => ({
  body: parts.body,
  query: parts.query ?? {},
});
const names = (count: number) =>
  Array.from({ length: count }, (_, n) => ({ event: `Event ${n}`, time: '1900-01-01T00:00:00Z' }));

it('weighs an ordinary request 1', () => {
  expect(weightOf(requestWith({}))).toBe(1);
  expect(weightOf(requestWith({ body: { description: 'Home' } }))).toBe(1);
  expect(weightOf(requestWith({ body: 'not an object' }))).toBe(1);
});

it('weighs a page by its size, in the query or the body', () => {
  expect(weightOf(requestWith({ query: { limit: '500' } }))).toBe(5);
  expect(weightOf(requestWith({ body: { limit: 250 } }))).toBe(3);
});

it('weighs a list by its names, one per twelve, and a list longer than any operation takes as the longest', () => {
  expect(weightOf(requestWith({ body: { proposed_changes: names(12) } }))).toBe(1);
  expect(weightOf(requestWith({ body: { proposed_changes: names(13) } }))).toBe(2);
  expect(weightOf(requestWith({ body: { proposed_changes: names(100) } }))).toBe(9);
  expect(weightOf(requestWith({ body: { items_transported: names(10_000).map((each) => each.event) } }))).toBe(9);
});

it('groups weights into classes for the metrics', () => {
  expect([1, 2, 4, 5, 9].map(weightClassOf)).toEqual(['light', 'medium', 'medium', 'heavy', 'heavy']);
});
