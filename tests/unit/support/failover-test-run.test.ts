// Whether the failover test (tests/http/failover.server.test.ts) runs, is skipped or fails, decided
// without running it: it takes minutes and a cluster of its own.
import { clusterRun, clusterTest, clusterUnavailable } from '../../support/ha/patroni-cluster';

const ROOT = 0;
const installed = () => true;
const withoutHaproxy = (program: string) => !program.endsWith('/haproxy');

/** A stand-in for Jest's `it`: what it was asked to declare, and what it was asked to skip. */
function declarations() {
  const declared: Array<{ name: string; test: () => Promise<void> }> = [];
  const skipped: string[] = [];
  const declare = (name: string, test: () => Promise<void>) => void declared.push({ name, test });
  return { declared, skipped, jestIt: Object.assign(declare, { skip: (name: string) => void skipped.push(name) }) };
}

it('runs as root with every program installed, wherever it is', () => {
  expect(clusterUnavailable(ROOT, installed)).toBeNull();
  expect(clusterRun(null, { TNS_REQUIRE_TOOLS: '1' })).toEqual({ run: true });
  const { declared, skipped, jestIt } = declarations();
  const test = async () => undefined;
  clusterTest(clusterRun(null, {}), jestIt)('keeps every write', test);
  expect([declared, skipped]).toEqual([[{ name: 'keeps every write', test }], []]);
});

it.each([
  ['when not root', 1000, installed, /needs root/],
  ['with a program missing among several', ROOT, withoutHaproxy, /^\/usr\/sbin\/haproxy missing/],
])('is skipped %s, saying why, where TNS_REQUIRE_TOOLS is not set', (_case, uid, exists, why) => {
  const here = clusterRun(clusterUnavailable(uid, exists), {});
  expect(here).toEqual({ run: false, fails: false, reason: expect.stringMatching(why) });
  const { declared, skipped, jestIt } = declarations();
  clusterTest(here, jestIt)('keeps every write', async () => undefined);
  expect([declared, skipped]).toEqual([[], ['keeps every write']]);
});

it.each([
  ['when not root', 1000, installed, /needs root/],
  ['with a program missing among several', ROOT, withoutHaproxy, /\/usr\/sbin\/haproxy missing/],
])('fails %s, saying why, where TNS_REQUIRE_TOOLS is set (CI)', (_case, uid, exists, why) => {
  const here = clusterRun(clusterUnavailable(uid, exists), { TNS_REQUIRE_TOOLS: '1' });
  expect(here).toMatchObject({ run: false, fails: true });
  const { declared, skipped, jestIt } = declarations();
  clusterTest(here, jestIt)('keeps every write', async () => undefined);
  expect(skipped).toEqual([]);
  expect(declared.map((each) => each.name)).toEqual(['keeps every write']);
  const [{ test }] = declared;
  expect(() => test()).toThrow(why);
  expect(() => test()).toThrow(/TNS_REQUIRE_TOOLS/);
});
