// A concurrent write load on service processes, in lanes: each lane is one client doing one kind of
// work for one account, one request after the other, and stops at the first request that gets no
// 2xx answer. Every request is recorded with its answer or its failure, so a test can tell what
// was acknowledged, what was refused and what was in flight when a process died.
import { call, type Answer } from './process-client';

export type WriteKind =
  'anchor' | 'item' | 'timeline' | 'travel' | 'moment' | 'fast-forward' | 'rewind' | 'pause' | 'resume';

export interface Write {
  readonly accountId: string;
  readonly kind: WriteKind;
  readonly path: string;
  readonly body: unknown;
  readonly idempotencyKey?: string;
  answer?: Answer;
  /** No answer came: the connection was refused or cut. */
  failure?: unknown;
}

export interface LoadAccount {
  readonly id: string;
  readonly auth: string;
}

/** Which process serves a request: the load may spread one account's requests over several. */
export type Route = (requestNumber: number) => string;

const PATHS: Record<WriteKind, string> = {
  anchor: '/v1/anchors',
  item: '/v1/items',
  timeline: '/v1/timelines',
  travel: '/v1/travels',
  moment: '/v1/travel',
  'fast-forward': '/v1/fast-forward',
  rewind: '/v1/rewind',
  pause: '/v1/pause-time',
  resume: '/v1/resume-time',
};

export class WriteLoad {
  readonly writes: Write[] = [];
  private requests = 0;
  private acknowledgedCount = 0;
  private readonly thresholds: { count: number; reached: () => void }[] = [];

  constructor(private readonly route: Route) {}

  /** Sends one write; its answer when it is a 2xx, otherwise undefined (the lane stops). */
  async send(
    account: LoadAccount,
    kind: WriteKind,
    body: unknown = {},
    idempotencyKey?: string,
  ): Promise<Answer | undefined> {
    const write: Write = { accountId: account.id, kind, path: PATHS[kind], body, idempotencyKey };
    this.writes.push(write);
    try {
      write.answer = await call(this.route(this.requests++), 'POST', write.path, {
        auth: account.auth,
        body,
        idempotencyKey,
      });
    } catch (error) {
      write.failure = error;
      return undefined;
    }
    if (write.answer.status >= 300) return undefined;
    this.acknowledgedCount += 1;
    for (const threshold of this.thresholds) if (threshold.count === this.acknowledgedCount) threshold.reached();
    return write.answer;
  }

  /** Resolves when `count` writes have been acknowledged. */
  acknowledged(count: number): Promise<void> {
    return new Promise((reached) => {
      if (this.acknowledgedCount >= count) reached();
      else this.thresholds.push({ count, reached });
    });
  }

  /** Writes answered 2xx, of one kind and account when given. */
  answered(filter: { kind?: WriteKind; accountId?: string } = {}): (Write & { answer: Answer })[] {
    return this.writes.filter(
      (write): write is Write & { answer: Answer } =>
        write.answer !== undefined && write.answer.status < 300 && matches(write, filter),
    );
  }

  /** Writes that got no answer at all. */
  unanswered(filter: { kind?: WriteKind; accountId?: string } = {}): Write[] {
    return this.writes.filter((write) => write.failure !== undefined && matches(write, filter));
  }

  /** Writes answered with anything but a 2xx. */
  refused(): Write[] {
    return this.writes.filter((write) => write.answer !== undefined && write.answer.status >= 300);
  }
}

function matches(write: Write, filter: { kind?: WriteKind; accountId?: string }): boolean {
  return (
    (filter.kind === undefined || write.kind === filter.kind) &&
    (filter.accountId === undefined || write.accountId === filter.accountId)
  );
}

/** The id of the row a 2xx answer reports having created. */
export function createdId(write: Write & { answer: Answer }): string {
  const id = write.kind === 'moment' ? write.answer.body.travel_id : write.answer.body.id;
  if (typeof id !== 'string')
    throw new Error(`${write.kind} answered without an id: ${JSON.stringify(write.answer.body)}`);
  return id;
}

/** Keys on every `every`-th request of a lane, so the load mixes keyed and plain writes. */
function keyFor(tag: string, step: number, every: number): string | undefined {
  return step % every === 0 ? `${tag}-${step}` : undefined;
}

/** Anchors, one after the other, every third with an Idempotency-Key. */
export async function anchorLane(load: WriteLoad, account: LoadAccount, tag: string, steps: number): Promise<void> {
  for (let step = 0; step < steps; step += 1) {
    if (!(await load.send(account, 'anchor', { description: `${tag} ${step}` }, keyFor(tag, step, 3)))) return;
  }
}

/** Items registered wherever the traveller is, every other one with an Idempotency-Key. */
export async function itemLane(load: WriteLoad, account: LoadAccount, tag: string, steps: number): Promise<void> {
  for (let step = 0; step < steps; step += 1) {
    if (!(await load.send(account, 'item', { description: `${tag} ${step}` }, keyFor(tag, step, 2)))) return;
  }
}

/**
 * Journeys: a timeline, the travel there, a move within it, an item found there, and the way home
 * carrying it. The only lane of its account that travels between timelines.
 */
export async function journeyLane(load: WriteLoad, account: LoadAccount, tag: string, journeys: number): Promise<void> {
  for (let journey = 0; journey < journeys; journey += 1) {
    const key = keyFor(`${tag}-${journey}`, journey, 2);
    const timeline = await load.send(
      account,
      'timeline',
      { name: `${tag} ${journey}`, destination_time: '1969-07-20T20:17:40Z', window: '10080 minutes' },
      key && `${key}-timeline`,
    );
    if (!timeline) return;
    if (!(await load.send(account, 'travel', { destination: timeline.body.id }, key && `${key}-out`))) return;
    if (
      !(await load.send(account, 'moment', {
        destination_time: '1969-07-21T02:56:15Z',
        location: 'Sea of Tranquility',
      }))
    )
      return;
    const item = await load.send(account, 'item', {
      description: `${tag} ${journey} rock`,
      location: 'Sea of Tranquility',
    });
    if (!item) return;
    if (
      !(await load.send(
        account,
        'travel',
        { destination: 'primary', items_transported: [item.body.id] },
        key && `${key}-home`,
      ))
    )
      return;
  }
}

/** Pause, fast-forward, resume, rewind: the clock's own moves, in an order that is always allowed. */
export async function clockLane(load: WriteLoad, account: LoadAccount, tag: string, rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round += 1) {
    if (!(await load.send(account, 'pause'))) return;
    if (!(await load.send(account, 'fast-forward', { duration: '2h' }, `${tag}-${round}-forward`))) return;
    if (!(await load.send(account, 'resume'))) return;
    if (!(await load.send(account, 'rewind', { duration: '1h' }))) return;
  }
}

/** Fast-forwards of one minute each, every third with an Idempotency-Key. */
export async function fastForwardLane(
  load: WriteLoad,
  account: LoadAccount,
  tag: string,
  steps: number,
): Promise<void> {
  for (let step = 0; step < steps; step += 1) {
    if (!(await load.send(account, 'fast-forward', { duration: '1m' }, keyFor(tag, step, 3)))) return;
  }
}
