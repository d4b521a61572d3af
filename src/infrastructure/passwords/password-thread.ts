// A thread of the password work's pool (password-threads.ts): it runs one task at a time, as the
// pool hands them, and answers each with its result or what it failed with. It runs below the API
// in the host's scheduler, so that on a busy host a crowd of sign-ups and sign-ins takes what the
// requests of the API leave of the cores, not half of it (docs/decisions.md, "Password work").
import { readlinkSync } from 'node:fs';
import { constants, getPriority, setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { type PasswordTask, PasswordTaskRunner, type PasswordTaskResults } from './password-tasks';

/**
 * How far above the process's nice value each thread's is: the scheduler gives a thread 10 above
 * another about a tenth of a core both want, and the whole of a core the API leaves idle.
 */
export const PASSWORD_THREAD_NICENESS = 10;

export interface TaskMessage {
  readonly id: number;
  readonly task: PasswordTask;
}

export type AnswerMessage =
  | { readonly id: number; readonly ok: true; readonly result: PasswordTaskResults[keyof PasswordTaskResults] }
  | { readonly id: number; readonly ok: false; readonly message: string };

/** The thread's first message: whether it runs below the API, and if not, why. */
export interface StartedMessage {
  readonly started: { readonly lowered: true } | { readonly lowered: false; readonly why: string };
}

/**
 * Lowers this thread alone: Linux keeps a nice value per thread, set through its own id (the last
 * part of /proc/thread-self's target, `<pid>/task/<tid>`). Raising one's own nice value needs no
 * privilege; elsewhere than Linux the thread stays as it is, and says so.
 */
function lowerOwnPriority(): StartedMessage['started'] {
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(threadId) || threadId <= 0) return { lowered: false, why: 'no thread id in /proc' };
    setPriority(threadId, Math.min(constants.priority.PRIORITY_LOW, getPriority(threadId) + PASSWORD_THREAD_NICENESS));
    return { lowered: true };
  } catch (error) {
    return { lowered: false, why: error instanceof Error ? error.message : String(error) };
  }
}

const port = parentPort;
if (port) {
  port.postMessage({ started: lowerOwnPriority() } satisfies StartedMessage);
  const runner = new PasswordTaskRunner();
  port.on('message', ({ id, task }: TaskMessage) => {
    let answer: AnswerMessage;
    try {
      answer = { id, ok: true, result: runner.run(task) };
    } catch (error) {
      answer = { id, ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(answer);
  });
}
