// `npm run bench:sign-in`: what a sign-in's password verification costs, against a hash of today's
// parameters (scrypt N=2^15, r=8, p=3) and against one of the earlier (p=1), which is padded to
// today's lanes so that its time does not give it away: milliseconds for one alone, and
// verifications a second with four at once on a password pool of four threads (docs/performance.md,
// "Sign-in").
// The rest of a sign-in (its throttle counters, the session's statements) is a few milliseconds.
import { createPasswordPool } from '../../src/infrastructure/passwords/password-pool';
import { ScryptCredentialHasher } from '../../src/infrastructure/system/scrypt-credential-hasher';
import { earlierPasswordHash } from '../../tests/support/builders/earlier-password-hash';

const ROUNDS = Number(process.env.SIGN_IN_ROUNDS ?? 24);
const AT_ONCE = 4;
const PASSWORD = 'a quiet lantern over the fjord';
const TURN = { clientAddress: '127.0.0.1', knownDevice: false };

async function measure(name: string, hash: string, hasher: ScryptCredentialHasher): Promise<void> {
  const presented = { typed: PASSWORD, normalised: PASSWORD };
  await hasher.verifyPassword(presented, hash, TURN);
  const alone: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    await hasher.verifyPassword(presented, hash, TURN);
    alone.push(performance.now() - started);
  }
  alone.sort((a, b) => a - b);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      for (let round = 0; round < ROUNDS / AT_ONCE; round++) await hasher.verifyPassword(presented, hash, TURN);
    }),
  );
  const perSecond = (ROUNDS / (performance.now() - started)) * 1000;
  const median = alone[Math.floor(alone.length / 2)] ?? 0;
  console.log(`| ${name} | ${median.toFixed(1)} | ${perSecond.toFixed(1)} |`);
}

async function main(): Promise<void> {
  const pool = createPasswordPool({ threads: AT_ONCE, queued: AT_ONCE, warm: true });
  const hasher = new ScryptCredentialHasher(pool);
  console.log(`| hash verified | ms for one (median of ${ROUNDS}) | verifications a second, ${AT_ONCE} at once |`);
  console.log('|---|---:|---:|');
  // Alternating, twice, so that the machine's drift falls on both alike.
  for (let turn = 0; turn < 2; turn++) {
    await measure('earlier hash, N=2^15, r=8, p=1, padded to p=3', earlierPasswordHash(PASSWORD), hasher);
    await measure("today's hash, N=2^15, r=8, p=3", await hasher.hashPassword(PASSWORD, TURN), hasher);
  }
  await pool.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
