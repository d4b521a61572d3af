import type { IncomingMessage } from 'node:http';
import type { AttemptError } from '../../core/domain/webhook-attempt';
import { attemptError } from './attempt-errors';

/** The most of an answer read: a receiver's answer is a status; its body is only shown in the log. */
export const MAX_ANSWER_BYTES = 64 * 1024;
/** What the deliveries listing keeps of an answer. */
export const KEPT_ANSWER_BYTES = 1024;

export interface ReadAnswer {
  /** The first KiB, as text. */
  readonly answer: string;
  /** too_large past MAX_ANSWER_BYTES; timeout or a network failure while it came. */
  readonly error: AttemptError | null;
}

/**
 * Reads an answer's body up to `limit` bytes and stops there (the connection is then closed):
 * an endpoint cannot make a delivery hold megabytes. Never rejects: a failure is the result's.
 */
export function readAnswer(
  response: IncomingMessage,
  deadline: AbortSignal,
  limit = MAX_ANSWER_BYTES,
): Promise<ReadAnswer> {
  return new Promise<ReadAnswer>((resolve) => {
    const kept: Buffer[] = [];
    let size = 0;
    // The first call wins: 'close' follows 'end', 'error' and our own destroy.
    const finish = (error: AttemptError | null) => resolve({ answer: answerText(kept), error });
    response.on('data', (chunk: Buffer) => {
      if (size < KEPT_ANSWER_BYTES) kept.push(chunk.subarray(0, KEPT_ANSWER_BYTES - size));
      size += chunk.length;
      if (size <= limit) return;
      finish('too_large');
      response.destroy();
    });
    response.once('end', () => finish(null));
    response.once('error', (error) => finish(deadline.aborted ? 'timeout' : attemptError(error)));
    response.once('close', () => finish(deadline.aborted ? 'timeout' : 'network'));
  });
}

/** The kept KiB as text: a character cut at its end, or bytes that are no UTF-8, read as U+FFFD. */
function answerText(chunks: readonly Buffer[]): string {
  const kept = Buffer.concat(chunks).toString('utf8');
  // PostgreSQL's text holds no NUL: a binary answer must still be recordable.
  return kept.replaceAll('\u0000', '\uFFFD');
}
