// Sign-ups from many client addresses, each within its own limit, in a process of their own (crowd.ts
// forks it): every address a loopback address of its own (127.0.<n>.1, each in a /24 of its own),
// bound as the source of its requests, one sign-up per `everySeconds`.
import { signUpFrom } from './loopback-sign-up';
import type { NoisyReport } from './noisy-load';

export interface SignUpPlan {
  readonly url: string;
  readonly addresses: number;
  /** Seconds between two sign-ups of one address: its limit's pace (RATE_LIMIT_ACCOUNTS_PER_MINUTE). */
  readonly everySeconds: number;
  readonly seconds: number;
}

function report(message: NoisyReport): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!process.send) return reject(new Error('sign-up-load.ts runs as a child of crowd.ts'));
    process.send(message, (error: Error | null) => (error ? reject(error) : resolve()));
  });
}

process.once('message', (plan: SignUpPlan) => {
  const answers = { ok: 0, refused: 0, shed: 0 };
  const ending = { until: Date.now() + plan.seconds * 1000 };
  // The parent's next message ends the sign-ups now.
  process.once('message', () => (ending.until = Date.now()));
  const address = async (n: number) => {
    const source = `127.0.${n + 1}.1`;
    // Spread over the first interval, so that the addresses do not all start at once.
    await new Promise((resolve) => setTimeout(resolve, (n / plan.addresses) * plan.everySeconds * 1000));
    for (let sent = 0; Date.now() < ending.until; sent++) {
      const started = Date.now();
      const { status } = await signUpFrom(plan.url, source, `crowd-${process.pid}-${n}-${sent}@bench.example`);
      if (status === 201) answers.ok++;
      else if (status === 429) answers.refused++;
      else answers.shed++;
      const rest = plan.everySeconds * 1000 - (Date.now() - started);
      if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    }
  };
  void report({ kind: 'driving' })
    .then(() => Promise.all(Array.from({ length: plan.addresses }, (_, n) => address(n))))
    .then(async () => {
      await report({ kind: 'done', ...answers });
      process.exit(0);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
});
