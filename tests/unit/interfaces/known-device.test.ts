// The known-device cookie: bound to one email and to the account's device stamp, signed, and known
// for 180 days; sent to every path, so that the password change reads it as sign-in does.
import type { Request, Response } from 'express';
import { KnownDevices } from '../../../src/interfaces/http/dashboard/known-device';

const DAY = 24 * 60 * 60 * 1000;

/** The cookies `remember` sets (name, value, options), and a request that presents `value` as it. */
function cookieJar() {
  const set: { name: string; value: string; options: object }[] = [];
  const res = {
    cookie: (name: string, value: string, options: object) => set.push({ name, value, options }),
  } as unknown as Response;
  const req = { secure: true } as Request;
  const presenting = (value: string) => ({ get: () => `tns_device=${value}` }) as unknown as Request;
  return { req, res, set, last: () => set.at(-1)?.value ?? '', presenting };
}

it('gives back the stamp it was issued with, for the email it signed in to, for 180 days', () => {
  let now = Date.parse('2030-01-01T00:00:00Z');
  const devices = new KnownDevices('s'.repeat(32), () => now);
  const jar = cookieJar();
  devices.remember(jar.req, jar.res, 'Ada@Example.com', 7);
  const presented = jar.presenting(jar.last());

  expect(devices.stampFor(presented, 'ada@example.com')).toBe(7);
  expect(devices.stampFor(presented, 'grace@example.com')).toBeNull();
  now += 180 * DAY;
  expect(devices.stampFor(presented, 'ada@example.com')).toBe(7);
  now += 1;
  expect(devices.stampFor(presented, 'ada@example.com')).toBeNull();
});

it('is sent to every path of the service, and found behind one an earlier version set for /login', () => {
  const devices = new KnownDevices('s'.repeat(32));
  const jar = cookieJar();
  devices.remember(jar.req, jar.res, 'ada@example.com', 0);

  expect(jar.set).toEqual([
    {
      name: 'tns_device',
      value: expect.stringMatching(/^\d+\.0\.[\w-]{43}$/),
      options: { httpOnly: true, sameSite: 'lax', secure: true, path: '/', maxAge: 180 * DAY },
    },
  ]);
  // At /login the browser sends the longer path's first.
  const earlier = `${Date.now()}.${'x'.repeat(43)}`;
  expect(devices.stampFor(jar.presenting(`${earlier}; tns_device=${jar.last()}`), 'ada@example.com')).toBe(0);
});

it('knows no browser whose cookie was altered, signed with another secret, or of the earlier form', () => {
  const now = () => Date.parse('2030-01-01T00:00:00Z');
  const devices = new KnownDevices('s'.repeat(32), now);
  const jar = cookieJar();
  new KnownDevices('t'.repeat(32), now).remember(jar.req, jar.res, 'ada@example.com', 0);
  expect(devices.stampFor(jar.presenting(jar.last()), 'ada@example.com')).toBeNull();

  devices.remember(jar.req, jar.res, 'ada@example.com', 2);
  const [issued, stamp, signature] = jar.last().split('.');
  expect(devices.stampFor(jar.presenting(`${issued}.3.${signature}`), 'ada@example.com')).toBeNull();
  expect(devices.stampFor(jar.presenting(`${Number(issued) + 1}.${stamp}.${signature}`), 'ada@example.com')).toBeNull();
  for (const value of ['', '.', 'x.y.z', `${issued}.${stamp}.`, `${issued}.${signature}`, `${issued}`])
    expect(devices.stampFor(jar.presenting(value), 'ada@example.com')).toBeNull();
});
