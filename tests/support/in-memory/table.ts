/** Where a write is being applied: what undoes it, what follows its commit, what a save of nothing is. */
export interface Applying {
  record(undo: () => void): void;
  /** Runs once the write is committed (as PostgreSQL delivers a NOTIFY at the commit, never for a rollback). */
  afterCommit(action: () => void): void;
  /** What to throw for a save of `what`, which is not there. */
  missing(what: string): Error;
}

/** Outside any unit of work: each write applies at once, and a save of nothing is an error. */
export const AT_ONCE: Applying = {
  record: () => undefined,
  afterCommit: (action) => action(),
  missing: (what) => new Error(`No row ${what} to update`),
};

type Write = (applying: Applying) => void;

/**
 * The writes of one unit of work, staged as they come and applied together at its end, or not at
 * all, as PostgreSQL applies a unit's one statement: nothing else sees them before, and a unit that
 * fails or loses to another writer leaves nothing behind.
 */
export class Journal {
  private readonly staged: Write[] = [];

  /** `onWrite` hears of each write as it is staged. */
  constructor(private readonly onWrite: () => void = () => undefined) {}

  /** Whether the unit has written anything yet. */
  get wrote(): boolean {
    return this.staged.length > 0;
  }

  stage(write: Write): void {
    this.onWrite();
    this.staged.push(write);
  }

  /**
   * Applies every staged write in order, or none of them when one fails (and throws its failure);
   * `missing` says what a save of a row that is not there throws.
   */
  commit(missing: (what: string) => Error): void {
    const undos: Array<() => void> = [];
    const committed: Array<() => void> = [];
    const applying: Applying = {
      record: (undo) => undos.push(undo),
      afterCommit: (action) => committed.push(action),
      missing,
    };
    try {
      for (const write of this.staged.splice(0)) write(applying);
    } catch (error) {
      for (const undo of undos.reverse()) undo();
      throw error;
    }
    for (const action of committed) action();
  }
}

/** A write of a repository: staged in the unit's journal, or applied at once outside any unit. */
export function write(journal: Journal | null, action: Write): Promise<void> {
  try {
    if (journal) journal.stage(action);
    else action(AT_ONCE);
    return Promise.resolve();
  } catch (error) {
    return Promise.reject(error);
  }
}

/** One table of the in-memory database; its writes record how to undo themselves while a unit's apply. */
export class Table<V> {
  private readonly rows = new Map<string, V>();

  get(key: string): V | undefined {
    return this.rows.get(key);
  }

  has(key: string): boolean {
    return this.rows.has(key);
  }

  values(): V[] {
    return [...this.rows.values()];
  }

  /** Inserts a row; like a primary key, refuses a key that is already taken. */
  insert(key: string, row: V, applying: Applying): void {
    if (this.rows.has(key)) throw new Error(`Duplicate key '${key}'`);
    this.set(key, row, applying);
  }

  /** Replaces a row; like an UPDATE by key that must hit a row, refuses a missing key. */
  update(key: string, row: V, applying: Applying): void {
    if (!this.rows.has(key)) throw applying.missing(`'${key}'`);
    this.set(key, row, applying);
  }

  /** Removes a row if there is one, like a DELETE by key. */
  delete(key: string, applying: Applying): void {
    const previous = this.rows.get(key);
    if (previous === undefined) return;
    this.rows.delete(key);
    applying.record(() => this.rows.set(key, previous));
  }

  private set(key: string, row: V, applying: Applying): void {
    const previous = this.rows.get(key);
    this.rows.set(key, row);
    applying.record(() => {
      if (previous !== undefined) this.rows.set(key, previous);
      else this.rows.delete(key);
    });
  }
}
