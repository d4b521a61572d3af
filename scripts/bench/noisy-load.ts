// The noisy account's load generator, in a process of its own (noisy-neighbour.ts forks it). In
// the measuring process it shared the quiet account's event loop: handling the noisy answers
// (pages of 140 KB over 50 connections) delayed the quiet answers as measured, by a wait the
// quiet account's own client would never see.
import { request } from 'node:http';
import { driveStoppable, type Load } from './measure';

/** Event streams opened and dropped as soon as their catch-up arrives, `concurrent` at a time. */
export interface StreamChurn {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly concurrent: number;
}

/** What the parent sends: the service, the loads with their connections, the streams, and for how long. */
export interface NoisyPlan {
  readonly url: string;
  readonly loads: readonly { readonly load: Load; readonly connections: number }[];
  /** None: no streams. */
  readonly streams?: StreamChurn;
  readonly seconds: number;
}

interface Answers {
  ok: number;
  refused: number;
}

/** One stream: opened, its first bytes read, dropped; its status (0 when it failed) and Retry-After. */
function openAndDrop(url: string, churn: StreamChurn): Promise<{ status: number; retryAfterS: number }> {
  return new Promise((resolve) => {
    const opened = request(
      new URL(churn.path, url),
      { headers: { ...churn.headers, accept: 'text/event-stream' }, agent: false },
      (res) => {
        const answer = { status: res.statusCode ?? 0, retryAfterS: Number(res.headers['retry-after'] ?? 1) };
        res.once('data', () => opened.destroy());
        res.once('end', () => opened.destroy());
        opened.once('close', () => resolve(answer));
      },
    );
    opened.once('error', () => resolve({ status: 0, retryAfterS: 1 }));
    opened.end();
  });
}

/**
 * Opens and drops streams, `concurrent` at a time, until `seconds` have passed. A refused one waits
 * its Retry-After, as a client within its limits does: the other loads keep the account at its rate
 * limit, and retrying at once would measure a flood of refusals rather than the streams.
 */
/** When the loads end: after the plan's seconds, or sooner when the parent says `stop`. */
const ending = { until: 0 };

async function churnStreams(plan: NoisyPlan, answers: Answers): Promise<void> {
  const { streams } = plan;
  if (!streams) return;
  const { until } = ending;
  const churner = async () => {
    while (Date.now() < Math.min(until, ending.until)) {
      const { status, retryAfterS } = await openAndDrop(plan.url, streams);
      if (status === 200) answers.ok++;
      else if (status === 429 || status === 503) answers.refused++;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, retryAfterS * 1000));
    }
  };
  await Promise.all(Array.from({ length: streams.concurrent }, churner));
}

/** What this process answers: that it started, then the answers by kind (`shed`: 503 server_busy). */
export type NoisyReport =
  | { readonly kind: 'driving' }
  | { readonly kind: 'done'; readonly ok: number; readonly refused: number; readonly shed: number };

function report(message: NoisyReport): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!process.send) return reject(new Error('noisy-load.ts runs as a child of noisy-neighbour.ts'));
    process.send(message, (error: Error | null) => (error ? reject(error) : resolve()));
  });
}

process.once('message', (plan: NoisyPlan) => {
  ending.until = Date.now() + plan.seconds * 1000;
  const runs = plan.loads.map((each) => driveStoppable(plan.url, each.load, each.connections, plan.seconds));
  // The parent's next message ends the loads now (it has measured what it drove them for).
  process.once('message', () => {
    ending.until = Date.now();
    for (const run of runs) run.stop();
  });
  const driven = runs.map((run) => run.result);
  const streamed: Answers = { ok: 0, refused: 0 };
  const churned = churnStreams(plan, streamed);
  void report({ kind: 'driving' })
    .then(() => Promise.all([Promise.all(driven), churned]))
    .then(async ([results]) => {
      let { ok, refused } = streamed;
      let shed = 0;
      for (const result of results) {
        ok += result['2xx'];
        refused += result.statusCodeStats?.['429']?.count ?? 0;
        shed += result.statusCodeStats?.['503']?.count ?? 0;
      }
      await report({ kind: 'done', ok, refused, shed });
      process.exit(0);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
});
