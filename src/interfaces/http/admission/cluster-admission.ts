// WEB_CONCURRENCY > 1: the workers' gates ask the cluster's primary, which counts every worker's
// requests of each account, so the limits hold for the instance and not once per worker. The
// messages travel on the IPC channel node:cluster gives each worker.
import type { Worker } from 'node:cluster';
import type { AdmissionLimits } from './account-admission';
import { AdmissionScheduler } from './admission-scheduler';
import type { RequestCost } from '../../../cluster/admission-terms';
import type { FairShareLimits } from './fair-share';
import { LoopRoom } from './loop-room';
import {
  type AdmissionAnswer,
  type AdmissionAsk,
  type AdmissionOutcome,
  isAdmissionAnswer,
  isAdmissionAsk,
} from '../../../cluster/messages';
import { PendingAsks, UNANSWERED } from '../../../cluster/pending-asks';
import { Problem } from '../problem';
import {
  type Admitted,
  type AdmissionGate,
  LeftTheQueue,
  tooManyInFlight,
  TurnWaits,
  type WhenGone,
} from './admission-gate';

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
  /** Asks the primary has not answered; a request waits for its turn as long as it takes. */
  private readonly asks = new PendingAsks<AdmissionAnswer>();

  constructor(
    readonly limits: AdmissionLimits,
    private readonly channel: PrimaryChannel = process,
    private readonly room = new LoopRoom(),
  ) {
    // A request that gave up waiting has already said so; the primary hears that after admitting it.
    channel.on('message', (message: unknown) => {
      if (isAdmissionAnswer(message)) this.asks.answered(message.id, message);
    });
    // The primary is gone (the worker is about to stop): no answer will come to those waiting.
    channel.on('disconnect', () => this.asks.unansweredAll());
  }

  async enter(accountId: string, whenGone: WhenGone, cost: RequestCost): Promise<Admitted> {
    const { id, answer } = this.asks.ask((id) => this.send({ type: 'admission', op: 'enter', id, accountId, cost }));
    const answered = await new Promise<AdmissionAnswer | typeof UNANSWERED>((resolve, reject) => {
      void answer.then(resolve);
      whenGone(() => {
        if (!this.asks.withdraw(id)) return;
        this.send({ type: 'admission', op: 'leave', id });
        reject(new LeftTheQueue());
      });
    });
    if (answered === UNANSWERED) throw primaryGone();
    if (answered.entry === 'refused')
      throw answered.refusal === 'busy' ? this.waits.refused(cost.weight) : tooManyInFlight(this.limits);
    const leave = () => this.send({ type: 'admission', op: 'leave', id });
    const loopMs = this.room.holds(cost.weight) ? await this.room.afterTurn(cost.weight, whenGone, leave) : 0;
    return this.waits.admitted(leave, answered.waited, loopMs, cost.weight);
  }

  /** False when this process has no channel to a primary. */
  private send(message: AdmissionAsk): boolean {
    return this.channel.send?.(message) !== undefined;
  }
}

/** The primary's side: counts every worker's requests, answers them, and frees a worker's when it exits. */
export class AdmissionServer {
  private readonly scheduler: AdmissionScheduler<string>;
  /**
   * Workers that exited: Node may deliver a worker's last messages after its exit, and a place
   * given to one of them would never be given back (worker ids are not reused).
   */
  private readonly exitedWorkers = new Set<number>();

  constructor(
    limits: AdmissionLimits,
    readonly share: FairShareLimits,
    /** The live worker of an id (node:cluster's `cluster.workers`). */
    private readonly workerOf: (workerId: number) => WorkerEnd | undefined,
  ) {
    this.scheduler = new AdmissionScheduler(limits, share, {
      run: (holder, waited) => this.answer(holder, { entry: 'running', waited }),
      refuse: (holder, refusal) => this.answer(holder, { entry: 'refused', refusal }),
    });
  }

  /** Handles a worker's message if it is about admission; false otherwise. */
  heard(worker: WorkerEnd, message: unknown): boolean {
    if (!isAdmissionAsk(message)) return false;
    if (this.exitedWorkers.has(worker.id)) return true;
    const ask = message;
    const holder = `${worker.id}/${ask.id}`;
    if (ask.op === 'enter') this.scheduler.enter(String(ask.accountId), holder, ask.cost ?? { cost: 1, weight: 1 });
    else this.scheduler.leave(holder);
    return true;
  }

  /** A worker exited: its requests, running or waiting, leave; others take their places. */
  exited(workerId: number): void {
    this.exitedWorkers.add(workerId);
    this.scheduler.leaveAll((holder) => holder.startsWith(`${workerId}/`));
  }

  /** The instance's work now (for the primary's gauges and tests). */
  get load(): { readonly runningWeight: number; readonly queued: number } {
    return this.scheduler.load;
  }

  private answer(holder: string, outcome: AdmissionOutcome): void {
    const [workerId, id] = holder.split('/').map(Number);
    const worker = workerId === undefined ? undefined : this.workerOf(workerId);
    if (worker && id !== undefined) tell(worker, { type: 'admission', id, ...outcome });
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
