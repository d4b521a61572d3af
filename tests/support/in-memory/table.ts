/**
 * Undo steps recorded by the writes of one transaction, replayed newest first on rollback; and what
 * happens only once it commits (as PostgreSQL delivers a NOTIFY at the commit, never for a rollback).
 */
export class Journal {
  private readonly undos: Array<() => void> = [];
  private readonly onCommit: Array<() => void> = [];

  record(undo: () => void): void {
    this.undos.push(undo);
  }

  /** Whether the transaction has written anything yet. */
  get wrote(): boolean {
    return this.undos.length > 0;
  }

  afterCommit(action: () => void): void {
    this.onCommit.push(action);
  }

  rollback(): void {
    for (const undo of this.undos.reverse()) undo();
    this.undos.length = 0;
    this.onCommit.length = 0;
  }

  commit(): void {
    for (const action of this.onCommit.splice(0)) action();
  }
}

/**
 * One table of the in-memory database. Writes record how to undo themselves in the journal of
 * the transaction making them, so a rollback undoes that transaction only and never the committed
 * work of another account's transaction running at the same time.
 */
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
  insert(key: string, row: V, journal: Journal | null): void {
    if (this.rows.has(key)) throw new Error(`Duplicate key '${key}'`);
    this.write(key, row, journal);
  }

  /** Replaces a row; like an UPDATE by key that must hit a row, refuses a missing key. */
  update(key: string, row: V, journal: Journal | null): void {
    if (!this.rows.has(key)) throw new Error(`No row with key '${key}' to update`);
    this.write(key, row, journal);
  }

  /** Removes a row if there is one, like a DELETE by key. */
  delete(key: string, journal: Journal | null): void {
    if (!this.rows.has(key)) return;
    const previous = this.rows.get(key);
    this.rows.delete(key);
    journal?.record(() => {
      if (previous !== undefined) this.rows.set(key, previous);
    });
  }

  private write(key: string, row: V, journal: Journal | null): void {
    const previous = this.rows.get(key);
    const existed = this.rows.has(key);
    this.rows.set(key, row);
    journal?.record(() => {
      if (existed && previous !== undefined) this.rows.set(key, previous);
      else this.rows.delete(key);
    });
  }
}
