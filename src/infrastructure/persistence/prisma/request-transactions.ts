import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from './db';
import type { Prisma, PrismaClient } from './generated/client';
import { DeferredRequest, type PendingWrites } from './optimistic/deferred-request';

type TransactionClient = Prisma.TransactionClient;

// Generous but bounded: many requests of one account may queue for its row lock.
export const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 15_000 } as const;

type Decision = { readonly commit: false } | { readonly commit: true; readonly seal: (db: Db) => Promise<void> };

/**
 * The writes of one request, in one transaction that its first write opens and the request's end
 * commits or rolls back. It lets a request's answer be kept atomically with what the request wrote
 * (Idempotency-Key: docs/decisions.md): a process killed in between leaves both or neither.
 */
export class RequestScope {
  private opened: Promise<TransactionClient> | null = null;
  private ended: Promise<void> | null = null;
  private decide: (decision: Decision) => void = () => undefined;
  /** Set when undoing a failed unit of work failed too: the transaction cannot commit any more. */
  private broken: unknown = null;
  /** Units share one connection and one savepoint name, so they must run one after the other. */
  private unitRunning = false;
  /** Committed or rolled back: no unit may open a transaction any more (nothing would end it). */
  private decided = false;

  constructor(private readonly prisma: PrismaClient) {}

  get isOpen(): boolean {
    return this.opened !== null;
  }

  /**
   * Runs one unit of work (a use case's exclusive or atomic work, a snapshot) in the request's
   * transaction, opening it on first use. A unit that fails is undone alone (a savepoint), as its
   * own transaction would have been: what earlier units wrote stays, to commit with the answer.
   */
  async within<T>(work: (tx: TransactionClient) => Promise<T>): Promise<T> {
    if (this.unitRunning) throw new Error('units of work of one request overlap; run them one after the other');
    this.unitRunning = true;
    try {
      return await this.withinSavepoint(await this.transaction(), work);
    } finally {
      this.unitRunning = false;
    }
  }

  private async withinSavepoint<T>(tx: TransactionClient, work: (tx: TransactionClient) => Promise<T>): Promise<T> {
    await tx.$executeRaw`SAVEPOINT unit_of_work`;
    try {
      const result = await work(tx);
      await tx.$executeRaw`RELEASE SAVEPOINT unit_of_work`;
      return result;
    } catch (error) {
      try {
        await tx.$executeRaw`ROLLBACK TO SAVEPOINT unit_of_work`;
      } catch (undoFailure) {
        // The work's own failure is what the caller must see; the transaction, now unusable, must not commit.
        this.broken = undoFailure;
      }
      throw error;
    }
  }

  /** Commits what was written together with what `seal` writes; with nothing written, `seal` runs alone. */
  async commit(seal: (db: Db) => Promise<void>): Promise<void> {
    if (this.broken !== null) {
      await this.rollBack();
      throw this.broken;
    }
    this.decided = true;
    if (!this.ended) return seal(this.prisma);
    this.decide({ commit: true, seal });
    await this.ended;
  }

  /** Undoes everything the request wrote. */
  async rollBack(): Promise<void> {
    this.decided = true;
    if (!this.ended) return;
    this.decide({ commit: false });
    // It ends rejected: as asked, or with its own failure (timed out, connection
    // lost) if that came first. Either way nothing was committed, which is all a rollback promises.
    await this.ended.then(
      () => Promise.reject(new Error('the request transaction committed when told to roll back')),
      () => undefined,
    );
  }

  private transaction(): Promise<TransactionClient> {
    if (this.opened) return this.opened;
    // A unit still running when its request ended (work left running beside a failure) must not
    // open a transaction that no decision would ever end.
    if (this.decided)
      return Promise.reject(new Error('the request ended; its units of work cannot open a transaction'));
    const decision = new Promise<Decision>((resolve) => (this.decide = resolve));
    let handOver: (tx: TransactionClient) => void = () => undefined;
    const handedOver = new Promise<TransactionClient>((resolve) => (handOver = resolve));
    const ended = this.prisma.$transaction(async (tx) => {
      handOver(tx);
      const decided = await decision;
      // Throwing is how an interactive transaction is rolled back; rollBack() expects the rejection.
      if (!decided.commit) throw new Error('the request ended without keeping its writes');
      await decided.seal(tx);
    }, TRANSACTION_OPTIONS);
    this.ended = ended;
    // A transaction that cannot start (no connection within maxWait, database down) ends first.
    this.opened = Promise.race([
      handedOver,
      ended.then(() => Promise.reject(new Error('the request transaction ended before it opened'))),
    ]);
    return this.opened;
  }
}

/** The request scopes of one Prisma client; the transaction boundary joins the current one. */
export class RequestTransactions {
  private readonly scopes = new AsyncLocalStorage<RequestScope>();
  private readonly deferredRequests = new AsyncLocalStorage<DeferredRequest>();

  constructor(private readonly prisma: PrismaClient) {}

  /**
   * Runs `produce` in a new request scope, then commits what it wrote together with `seal(result)`.
   * If `produce` or `seal` throws, nothing the request wrote is kept.
   */
  async run<T>(produce: () => Promise<T>, seal: (db: Db, result: T) => Promise<void>): Promise<T> {
    const scope = new RequestScope(this.prisma);
    let result: T;
    try {
      result = await this.scopes.run(scope, produce);
    } catch (error) {
      await scope.rollBack();
      throw error;
    }
    await scope.commit((db) => seal(db, result));
    return result;
  }

  current(): RequestScope | undefined {
    return this.scopes.getStore();
  }

  /**
   * Runs `produce` as a deferred request (optimistic/deferred-request.ts): its result and the writes
   * it left pending, or null when it gave way to the request transaction (`run` it there). Nothing
   * is written either way until the caller applies the pending writes.
   */
  async runDeferred<T>(
    produce: () => Promise<T>,
  ): Promise<{ readonly result: T; readonly pending: PendingWrites | null } | null> {
    const request = new DeferredRequest();
    try {
      const result = await this.deferredRequests.run(request, produce);
      return request.abandoned === null ? { result, pending: request.pending } : null;
    } catch (error) {
      if (request.abandoned !== null) return null;
      throw error;
    }
  }

  deferred(): DeferredRequest | undefined {
    return this.deferredRequests.getStore();
  }
}
