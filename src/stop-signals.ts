/** The signals that ask a process to stop: a supervisor's SIGTERM, a terminal's Ctrl-C. */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * Hears SIGTERM and SIGINT from the moment it is made, and stops the process once: the first signal
 * runs the stop, every later one is only said. A terminal's Ctrl-C reaches the whole process group,
 * and `npm start` forwards it to the service as well, so a service started by npm hears SIGINT twice;
 * a second signal must not end it by the default action half-way through its stop (which left the
 * embedded database unclean). A signal during the start is kept until the process says how to stop.
 */
export class StopSignals {
  private first: NodeJS.Signals | undefined;
  private stop: ((signal: NodeJS.Signals) => void) | undefined;
  private readonly heard = (signal: NodeJS.Signals): void => this.hear(signal);

  constructor(private readonly onRepeat: (signal: NodeJS.Signals, first: NodeJS.Signals) => void) {
    for (const signal of STOP_SIGNALS) process.on(signal, this.heard);
  }

  /** The first stop signal heard, if any. */
  get received(): NodeJS.Signals | undefined {
    return this.first;
  }

  /** From now on the first signal runs `stop`; one heard already runs it now. */
  whenStopped(stop: (signal: NodeJS.Signals) => void): void {
    this.stop = stop;
    if (this.first) stop(this.first);
  }

  /** A stop asked for otherwise (a cluster worker's primary), counted as a signal heard. */
  hear(signal: NodeJS.Signals): void {
    if (this.first) {
      this.onRepeat(signal, this.first);
      return;
    }
    this.first = signal;
    this.stop?.(signal);
  }
}
