import type { Account } from '../../../src/core/domain/account';
import type { IdempotencyStore } from '../../../src/core/ports/idempotency-store';
import type { RateCounterStore } from '../../../src/core/ports/rate-counter-store';
import type { Repositories } from '../../../src/core/ports/repositories';
import type { TransactionBoundary } from '../../../src/core/ports/transaction-boundary';

/** One implementation of the ports, empty, as a contract test starts from. */
export interface RepositoriesUnderTest {
  readonly repos: Repositories;
  readonly tx: TransactionBoundary;
  /** A boundary of another process on the same database: its own queue, nothing shared with `tx` but the data. */
  anotherProcess(): TransactionBoundary;
  /** Keyed requests, produced through `tx`. */
  readonly keys: IdempotencyStore;
  /** The counters every process shares (rate limits, and what an account's keys keep an hour). */
  readonly counters: RateCounterStore;
  cleanup(): Promise<void>;
}

export type MakeRepositories = () => Promise<RepositoriesUnderTest>;

/**
 * Gives each test of a contract a fresh, empty implementation and releases it afterwards:
 * `subject.current` is valid inside a test.
 */
export function useRepositories(makeRepositories: MakeRepositories): { readonly current: RepositoriesUnderTest } {
  let current: RepositoriesUnderTest | null = null;
  beforeEach(async () => {
    current = await makeRepositories();
  });
  afterEach(async () => {
    await current?.cleanup();
    current = null;
  });
  return {
    get current(): RepositoriesUnderTest {
      if (!current) throw new Error('The repositories under test exist only inside a test.');
      return current;
    },
  };
}

export function anAccountRecord(id: string, overrides: Partial<Account> = {}): Account {
  return {
    id,
    email: `${id}@example.com`,
    passwordHash: `hash-of-${id}`,
    passwordChangeDue: false,
    deviceStamp: 0,
    createdAt: new Date('2030-01-01T11:59:59.123Z'),
    ...overrides,
  };
}

/** Account-owned rows need their account first (a foreign key in the real schema). */
export async function givenAccounts(repos: Repositories, ...accountIds: string[]): Promise<void> {
  for (const id of accountIds) await repos.accounts.add(anAccountRecord(id));
}

/** A new Date object on every call, so no lookup can succeed by object identity alone. */
export function at(iso: string): Date {
  return new Date(iso);
}

export function idsOf(rows: readonly { id: string }[]): string[] {
  return rows.map((row) => row.id);
}
