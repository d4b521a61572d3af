import type { Repositories } from '../../../core/ports/repositories';
import type { TransactionBoundary } from '../../../core/ports/transaction-boundary';
import { Prisma, type PrismaClient } from './generated/client';
import { KnownTravellers } from './optimistic/known-travellers';
import { deferOptimistically, type Fallback, runOptimistically } from './optimistic/run-optimistically';
import { prismaRepositories } from './prisma-repositories';
import { PrismaTravellerRepository } from './repositories/prisma-traveller-repository';
import { prismaSql, type SqlRunner } from './sql-runner';
import { type RequestTransactions, TRANSACTION_OPTIONS } from './request-transactions';

type TransactionClient = Prisma.TransactionClient;

/**
 * Travellers each process remembers as it last wrote them (about 300 bytes each), so a write
 * usually needs no read first: a few MiB, enough for the accounts writing at any one time.
 */
const KNOWN_TRAVELLERS = 10_000;

/**
 * Why an account's exclusive work ran under its lock after an optimistic run (for the log), with
 * PostgreSQL's refusal when the optimistic statement failed.
 */
export type FallbackListener = (accountId: string, fallback: Fallback, cause?: unknown) => void;

export interface BoundaryOptions {
  /** Statements outside transactions straight on Prisma's pool (default: through Prisma, as tests of the port may). */
  readonly sql?: SqlRunner;
  readonly onFallback?: FallbackListener;
}

/**
 * Each unit of work in a transaction of its own, or, inside a request scope (a request whose answer
 * must commit with its writes), in the request's one transaction: see request-transactions.ts.
 * An account's exclusive work runs optimistically first (optimistic/run-optimistically.ts): its
 * writes in one guarded statement; under the account's lock only when that cannot decide. A keyed
 * request runs as a deferred request first (optimistic/deferred-request.ts): its one unit's writes
 * wait for its answer.
 */
export class PrismaTransactionBoundary implements TransactionBoundary {
  private readonly plain: Repositories;
  private readonly known = new KnownTravellers(KNOWN_TRAVELLERS);

  private readonly sql: SqlRunner;
  private readonly onFallback: FallbackListener;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly requests: RequestTransactions,
    options: BoundaryOptions = {},
  ) {
    this.sql = options.sql ?? prismaSql(prisma);
    this.onFallback = options.onFallback ?? (() => undefined);
    this.plain = prismaRepositories(prisma, this.sql);
  }

  async exclusive<T>(accountId: string, work: (repositories: Repositories) => Promise<T>): Promise<T> {
    const deferred = this.requests.deferred();
    if (deferred)
      return deferOptimistically(deferred, { sql: this.sql, accountId, work, plain: this.plain, known: this.known });
    const locked = async (tx: TransactionClient) => {
      // This run moves the version on: what this process knew of the traveller is out of date.
      this.known.forget(accountId);
      const travellers = new PrismaTravellerRepository(tx);
      await travellers.lockForAccount(accountId);
      return work({ ...prismaRepositories(tx), travellers });
    };
    // A request scope keeps its writes for its answer's transaction: they cannot commit alone.
    const scope = this.requests.current();
    if (scope) return scope.within(locked);
    const outcome = await runOptimistically({ sql: this.sql, accountId, work, plain: this.plain, known: this.known });
    if (outcome.applied) return outcome.result;
    this.onFallback(accountId, outcome.fallback, outcome.cause);
    return this.prisma.$transaction(locked, TRANSACTION_OPTIONS);
  }

  atomic<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    this.requests.deferred()?.abandon('atomic work');
    const unit = (tx: TransactionClient) => work(prismaRepositories(tx));
    return this.requests.current()?.within(unit) ?? this.prisma.$transaction(unit, TRANSACTION_OPTIONS);
  }

  snapshot<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    this.requests.deferred()?.beforeRead();
    const joined = this.withinWrittenScope(work);
    if (joined) return joined;
    return this.prisma.$transaction((tx) => work(prismaRepositories(tx)), {
      ...TRANSACTION_OPTIONS,
      isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead,
    });
  }

  read<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    this.requests.deferred()?.beforeRead();
    return this.withinWrittenScope(work) ?? work(this.plain);
  }

  /**
   * Reads of a request that has written run in its transaction: they must see its writes, and its
   * connection is the one it holds (the embedded database has only one). A keyed request writes
   * through exclusive units, which locked its account, so the account's state cannot change under
   * these reads: they agree as a repeatable-read snapshot would. Null before any write.
   */
  private withinWrittenScope<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> | null {
    const scope = this.requests.current();
    return scope?.isOpen ? scope.within((tx) => work(prismaRepositories(tx))) : null;
  }
}
