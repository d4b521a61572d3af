// A thread of the password work's pool (password-threads.ts): it runs one task at a time, as the
// pool hands them, and answers each with its result or what it failed with.
import { parentPort } from 'node:worker_threads';
import { type PasswordTask, PasswordTaskRunner, type PasswordTaskResults } from './password-tasks';

export interface TaskMessage {
  readonly id: number;
  readonly task: PasswordTask;
}

export type AnswerMessage =
  | { readonly id: number; readonly ok: true; readonly result: PasswordTaskResults[keyof PasswordTaskResults] }
  | { readonly id: number; readonly ok: false; readonly message: string };

const port = parentPort;
if (port) {
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
