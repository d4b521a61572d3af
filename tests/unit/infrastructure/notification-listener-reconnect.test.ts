// The listening connections' pause before each reconnection: doubling, capped, and spread at random
// over the upper half of each pause, so that the processes that lost theirs together (a failover)
// do not all try again at the same moments. The random source is the test's own.
import { once } from 'node:events';
import {
  NotificationListener,
  reconnectDelayMs,
} from '../../../src/infrastructure/database/driver/notification-listener';
import { freeLoopbackPort } from '../../support/free-port';

const ignored = { heard: () => undefined, suspend: () => undefined, resume: () => undefined };

it('waits a random point of the upper half of a ceiling that doubles from 0.25 s up to 5 s', () => {
  const lowest = () => 0;
  const highest = () => 0.999_999;
  expect([0, 1, 2, 3, 4, 5, 10].map((attempt) => reconnectDelayMs(attempt, lowest))).toEqual([
    125, 250, 500, 1000, 2000, 2500, 2500,
  ]);
  expect([0, 1, 2, 3, 4, 5, 10].map((attempt) => reconnectDelayMs(attempt, highest))).toEqual([
    250, 500, 1000, 2000, 4000, 5000, 5000,
  ]);
  expect(reconnectDelayMs(3, () => 0.5)).toBe(1500);
});

it('spreads processes that lost their connections together over the pause', () => {
  // Ten processes, each its own draw: ten different moments for the same attempt.
  const draws = Array.from({ length: 10 }, (_, n) => n / 10);
  const moments = new Set(draws.map((draw) => reconnectDelayMs(4, () => draw)));
  expect(moments.size).toBe(10);
  expect(Math.min(...moments)).toBeGreaterThanOrEqual(2000);
  expect(Math.max(...moments)).toBeLessThanOrEqual(4000);
});

it('pauses as its random source says after losing its connection', async () => {
  const closedPort = await freeLoopbackPort();
  const timers = jest.spyOn(global, 'setTimeout');
  const listener = new NotificationListener({ name: 'nothing', purpose: 'a test' }, ignored, { random: () => 0.5 });
  try {
    listener.start(`postgresql://postgres@127.0.0.1:${closedPort}/postgres`);
    await once(listener, 'lost');
    // The first attempt's pause: half of 250 ms, and half of the other half.
    expect(timers.mock.calls.map(([, delay]) => delay)).toContain(188);
  } finally {
    timers.mockRestore();
    await listener.close();
  }
});
