// The noisy account's load generator, in a process of its own (noisy-neighbour.ts forks it). In
// the measuring process it shared the quiet account's event loop: handling the noisy answers
// (pages of 140 KB over 50 connections) delayed the quiet answers as measured, by a wait the
// quiet account's own client would never see.
import { drive, type Load } from './measure';

/** What the parent sends: the service, the loads with their connections, and for how long. */
export interface NoisyPlan {
  readonly url: string;
  readonly loads: readonly { readonly load: Load; readonly connections: number }[];
  readonly seconds: number;
}

/** What this process answers: that it started, then the noisy account's answers by kind. */
export type NoisyReport =
  { readonly kind: 'driving' } | { readonly kind: 'done'; readonly ok: number; readonly refused: number };

function report(message: NoisyReport): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!process.send) return reject(new Error('noisy-load.ts runs as a child of noisy-neighbour.ts'));
    process.send(message, (error: Error | null) => (error ? reject(error) : resolve()));
  });
}

process.once('message', (plan: NoisyPlan) => {
  const driven = plan.loads.map((each) => drive(plan.url, each.load, each.connections, plan.seconds));
  void report({ kind: 'driving' })
    .then(() => Promise.all(driven))
    .then(async (results) => {
      let ok = 0;
      let refused = 0;
      for (const result of results) {
        ok += result['2xx'];
        refused += result.statusCodeStats?.['429']?.count ?? 0;
      }
      await report({ kind: 'done', ok, refused });
      process.exit(0);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
});
