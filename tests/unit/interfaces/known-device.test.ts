// The known-device cookie: bound to one email, signed, and known for 180 days.
import type { Request, Response } from 'express';
import { KnownDevices } from '../../../src/interfaces/http/dashboard/known-device';

const DAY = 24 * 60 * 60 * 1000;

/** The cookie `remember` sets, and a request that presents `value` as it. */
function cookieJar() {
  let set = '';
  const res = { cookie: (_name: string, value: string) => (set = value) } as unknown as Response;
  const req = { secure: true } as Request;
  const presenting = (value: string) => ({ get: () => `tns_device=${value}` }) as unknown as Request;
  return { req, res, set: () => set, presenting };
}

it('knows the browser for the email it signed in to, for 180 days, and for no other email', () => {
  let now = Date.parse('2030-01-01T00:00:00Z');
  const devices = new KnownDevices('s'.repeat(32), () => now);
  const jar = cookieJar();
  devices.remember(jar.req, jar.res, 'Ada@Example.com');
  const presented = jar.presenting(jar.set());

  expect(devices.isKnown(presented, 'ada@example.com')).toBe(true);
  expect(devices.isKnown(presented, 'grace@example.com')).toBe(false);
  now += 180 * DAY;
  expect(devices.isKnown(presented, 'ada@example.com')).toBe(true);
  now += 1;
  expect(devices.isKnown(presented, 'ada@example.com')).toBe(false);
});

it('knows no browser whose cookie was altered or signed with another secret', () => {
  const now = () => Date.parse('2030-01-01T00:00:00Z');
  const devices = new KnownDevices('s'.repeat(32), now);
  const jar = cookieJar();
  new KnownDevices('t'.repeat(32), now).remember(jar.req, jar.res, 'ada@example.com');
  expect(devices.isKnown(jar.presenting(jar.set()), 'ada@example.com')).toBe(false);

  devices.remember(jar.req, jar.res, 'ada@example.com');
  const [issued, signature] = jar.set().split('.');
  expect(devices.isKnown(jar.presenting(`${Number(issued) + 1}.${signature}`), 'ada@example.com')).toBe(false);
  for (const value of ['', '.', 'x.y', `${issued}.`, `${issued}`])
    expect(devices.isKnown(jar.presenting(value), 'ada@example.com')).toBe(false);
});
