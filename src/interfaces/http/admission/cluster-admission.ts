// WEB_CONCURRENCY > 1: the workers' gates ask the cluster's primary, which counts every worker's
// requests of each account, so the limits hold for the instance and not once per worker. The
// messages travel on the IPC channel node:cluster gives each worker.
import type { Worker } from 'node:cluster';
import { AccountAdmission, type AdmissionLimits } from './account-admission';
import { hasType } from '../../../worker-messages';
import { Problem } from '../problem';
import {
  type Admitted,
  type AdmissionGate,
  LeftTheQueue,
  tooManyInFlight,
  TurnWaits,
  type WhenGone,
} from './admission-gate';

/** A worker asks for a request to run, or says it is done or gave up waiting. */
interface AdmissionAsk {
  readonly type: 'admission';
  readonly op: 'enter' | 'leave';
  readonly id: number;
  readonly accountId?: string;
  /** What the request counts as against its account's rate limit (enter). */
  readonly cost?: number;
}

/** The primary says a request runs (now, or after waiting) or is refused. */
interface AdmissionAnswer {
  readonly type: 'admission';
  readonly id: number;
  readonly entry: 'running' | 'refused';
  /** It waited behind its account's requests in flight. */
  readonly queued?: boolean;
  /** Milliseconds it waits for its account's pace before it starts. */
  readonly delayMs?: number;
}

function isAdmission(message: unknown): message is { readonly type: 'admission'; readonly id: number } {
  return hasType(message, 'admission') && 'id' in message && typeof message.id === 'number';
}

/** A worker's end of the IPC channel (node:cluster gives it as `process`). */
export interface PrimaryChannel {
  send?(message: unknown): boolean;
  on(event: 'message' | 'disconnect', listener: (message: unknown) => void): unknown;
}

/** A worker as its primary sees it. */
type WorkerEnd = Pick<Worker, 'id' | 'send' | 'isConnected'>;

/** A worker's gate: each request asks the primary, and waits for its answer. */
export class ClusterAdmission implements AdmissionGate {
  readonly waits = new TurnWaits();
  private readonly pending = new Map<number, (answer: AdmissionAnswer | 'unanswered') => void>();
  private nextId = 0;

  constructor(
    readonly limits: AdmissionLimits,
    private readonly channel: PrimaryChannel = process,
  ) {
    channel.on('message', (message: unknown) => {
      if (!isAdmission(message) || !('entry' in message)) return;
      const answer = this.pending.get(message.id);
      this.pending.delete(message.id);
      // A request that gave up waiting has already said so; the primary hears that after admitting it.
      answer?.(message as AdmissionAnswer);
    });
    // The primary is gone (the worker is about to stop): no answer will come to those waiting.
    channel.on('disconnect', () => {
      for (const answer of this.pending.values()) answer('unanswered');
      this.pending.clear();
    });
  }

  async enter(accountId: string, whenGone: WhenGone, cost = 1): Promise<Admitted> {
    const id = this.nextId++;
    const arrived = performance.now();
    const answered = await new Promise<AdmissionAnswer | 'unanswered'>((resolve, reject) => {
      this.pending.set(id, resolve);
      this.ask({ type: 'admission', op: 'enter', id, accountId, cost });
      whenGone(() => {
        if (!this.pending.delete(id)) return;
        this.ask({ type: 'admission', op: 'leave', id });
        reject(new LeftTheQueue());
      });
    });
    if (answered === 'unanswered') throw primaryGone();
    if (answered.entry === 'refused') throw tooManyInFlight(this.limits);
    const leave = () => this.ask({ type: 'admission', op: 'leave', id });
    const queuedMs = answered.queued ? performance.now() - arrived : 0;
    return this.waits.start(leave, queuedMs, answered.delayMs ?? 0, whenGone);
  }

  private ask(message: AdmissionAsk): void {
    if (this.channel.send?.(message) === undefined) this.pending.get(message.id)?.('unanswered');
  }
}

/** The primary's side: counts every worker's requests, answers them, and frees a worker's when it exits. */
export class AdmissionServer {
  private readonly rule: AccountAdmission<string>;
  /**
   * Workers that exited: Node may deliver a worker's last messages after its exit, and a place
   * given to one of them would never be given back (worker ids are not reused).
   */
  private readonly exitedWorkers = new Set<number>();

  constructor(
    limits: AdmissionLimits,
    /** The live worker of an id (node:cluster's `cluster.workers`). */
    private readonly workerOf: (workerId: number) => WorkerEnd | undefined,
  ) {
    this.rule = new AccountAdmission(limits);
  }

  /** Handles a worker's message if it is about admission; false otherwise. */
  heard(worker: WorkerEnd, message: unknown): boolean {
    if (!isAdmission(message) || !('op' in message)) return false;
    if (this.exitedWorkers.has(worker.id)) return true;
    const ask = message as AdmissionAsk;
    const holder = `${worker.id}/${ask.id}`;
    if (ask.op === 'enter') {
      const entry = this.rule.enter(String(ask.accountId), holder, ask.cost);
      if (entry === 'refused') tell(worker, { type: 'admission', id: ask.id, entry });
      else if (entry === 'running') tell(worker, this.running(holder, ask.id, false));
    } else {
      this.admit(this.rule.leave(holder));
    }
    return true;
  }

  /** A worker exited: its requests, running or waiting, leave; others of their accounts take their places. */
  exited(workerId: number): void {
    this.exitedWorkers.add(workerId);
    for (const next of this.rule.leaveAll((holder) => holder.startsWith(`${workerId}/`))) this.admit(next);
  }

  private admit(holder: string | null): void {
    if (holder === null) return;
    const [workerId, id] = holder.split('/').map(Number);
    const worker = workerId === undefined ? undefined : this.workerOf(workerId);
    if (worker && id !== undefined) tell(worker, this.running(holder, id, true));
  }

  /** The answer that lets a request run, once its account's pace allows. */
  private running(holder: string, id: number, queued: boolean): AdmissionAnswer {
    return { type: 'admission', id, entry: 'running', queued, delayMs: this.rule.startDelay(holder) };
  }
}

/**
 * Sends unless the worker's channel is closed (it is exiting; its requests leave when it has):
 * without a callback, a send on a closed channel is an 'error' event the primary does not handle.
 */
function tell(worker: WorkerEnd, message: AdmissionAnswer): void {
  if (worker.isConnected()) worker.send(message, undefined, () => undefined);
}

/** A worker whose primary is gone cannot admit a request: it is stopping. */
function primaryGone(): Problem {
  return new Problem(
    503,
    'service_unavailable',
    'This process is stopping; retry, and another will answer.',
    {},
    {
      'Retry-After': '1',
    },
  );
}
