// The threads of the password work's pool: node:worker_threads, each running one task at a time
// (password-thread.ts). Which task runs next is the pool's business (password-pool.ts); here a
// task is handed to a free thread, and a thread that dies is replaced by the next task's.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { AnswerMessage, StartedMessage, TaskMessage } from './password-thread';
import type { PasswordTask } from './password-tasks';

/** Runs tasks on at most `size` threads; never handed more than `size` at once. */
export interface TaskThreads {
  readonly size: number;
  run(task: PasswordTask): Promise<unknown>;
  close(): Promise<void>;
}

// From the sources (tests, tsx) the thread loads them through tsx, as the embedded database's does.
const FROM_SOURCES = __filename.endsWith('.ts');
const THREAD_FILE = path.join(__dirname, `password-thread${path.extname(__filename)}`);

/** What a thread said as it started: whether it runs below the API (password-thread.ts). */
export type ThreadStart = StartedMessage['started'];

/** One worker thread, and the task it runs. */
class Thread {
  private readonly worker: Worker;
  private nextId = 0;
  private current: { readonly id: number; resolve(value: unknown): void; reject(error: Error): void } | null = null;
  dead = false;

  constructor(onDeath: (thread: Thread) => void, onStart: (start: ThreadStart) => void) {
    this.worker = new Worker(THREAD_FILE, { execArgv: FROM_SOURCES ? ['--import', 'tsx'] : undefined });
    // Idle, it does not keep the process alive: a script that hashed a password may end.
    this.worker.unref();
    this.worker.on('message', (message: AnswerMessage | StartedMessage) => {
      if ('started' in message) return onStart(message.started);
      const current = this.current;
      if (!current || current.id !== message.id) return;
      this.current = null;
      this.worker.unref();
      if (message.ok) current.resolve(message.result);
      else current.reject(new Error(`password work failed: ${message.message}`));
    });
    const died = (why: string) => {
      if (this.dead) return;
      this.dead = true;
      this.current?.reject(new Error(`a password work thread stopped: ${why}`));
      this.current = null;
      onDeath(this);
    };
    this.worker.on('error', (error: Error) => died(error.message));
    this.worker.on('exit', (code) => died(`it exited with code ${code}`));
  }

  run(task: PasswordTask): Promise<unknown> {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.current = { id, resolve, reject };
      // At work, it keeps the process alive until it answers.
      this.worker.ref();
      this.worker.postMessage({ id, task } satisfies TaskMessage);
    });
  }

  async stop(): Promise<void> {
    this.dead = true;
    this.current?.reject(new Error('the password work threads were closed'));
    this.current = null;
    await this.worker.terminate();
  }
}

export class PasswordThreads implements TaskThreads {
  private readonly idle: Thread[] = [];
  private readonly all = new Set<Thread>();
  private closed = false;

  constructor(
    readonly size: number,
    /** Told as each thread starts, in the order they start. */
    private readonly onStart: (start: ThreadStart) => void = () => undefined,
  ) {}

  /** Starts every thread now, so that the first requests do not wait for one to load. */
  warm(): void {
    while (!this.closed && this.all.size < this.size) this.idle.push(this.spawn());
  }

  async run(task: PasswordTask): Promise<unknown> {
    if (this.closed) throw new Error('the password work threads were closed');
    const thread = this.idle.pop() ?? this.spawn();
    try {
      return await thread.run(task);
    } finally {
      if (!thread.dead) this.idle.push(thread);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const threads = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(threads.map((thread) => thread.stop()));
  }

  private spawn(): Thread {
    const thread = new Thread((dead) => {
      this.all.delete(dead);
      const at = this.idle.indexOf(dead);
      if (at >= 0) this.idle.splice(at, 1);
    }, this.onStart);
    this.all.add(thread);
    return thread;
  }
}
