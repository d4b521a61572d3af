/**
 * What one process started, in order: the telemetry, the database, its listening connections, the
 * HTTP listeners. Each is stopped in the reverse order, so that nothing stops before what still uses
 * it: at a stop signal, and as well when a later one fails to start, so that a start that fails
 * half-way leaves no connection or listener behind.
 */
export class ProcessResources {
  private readonly started: { readonly name: string; readonly stop: (reason: string) => unknown }[] = [];
  private cancelled: string | undefined;

  /**
   * Starts a resource after those already started; `stop` is kept for `stopAll`, told why. A start
   * that fails says which resource it was, with what it failed with as its cause. Once the start is
   * cancelled, it throws `StartCancelled` instead, or after the start under way, which is kept to be
   * stopped with the rest.
   */
  async start<T>(
    name: string,
    start: () => T | Promise<T>,
    stop: (resource: T, reason: string) => unknown,
  ): Promise<T> {
    this.refuseIfCancelled();
    let resource: T;
    try {
      resource = await start();
    } catch (error) {
      throw new Error(`starting ${name} failed: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
    this.started.push({ name, stop: (reason) => stop(resource, reason) });
    this.refuseIfCancelled();
    return resource;
  }

  /** A stop signal during the start: the resource starting finishes, and no other starts. */
  cancelStarts(reason: string): void {
    this.cancelled ??= reason;
  }

  private refuseIfCancelled(): void {
    if (this.cancelled !== undefined) throw new StartCancelled(this.cancelled);
  }

  /**
   * Stops every resource, the last started first. One that fails to stop does not keep the others
   * up: each is stopped, and then the failures are thrown together. `reason` (a signal's name) is
   * what the stops say in their log lines.
   */
  async stopAll(reason: string): Promise<void> {
    const failures: Error[] = [];
    for (let next = this.started.pop(); next; next = this.started.pop()) {
      try {
        await next.stop(reason);
      } catch (error) {
        failures.push(new Error(`stopping ${next.name} failed`, { cause: error }));
      }
    }
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) throw new AggregateError(failures, 'stopping the process failed');
  }
}

/** The start was stopped by a signal: not a failure, and the process ends as a stop does. */
export class StartCancelled extends Error {
  constructor(readonly reason: string) {
    super(`${reason} during the start: stopped`);
    this.name = 'StartCancelled';
  }
}
