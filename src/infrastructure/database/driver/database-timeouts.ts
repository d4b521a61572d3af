// Bounds on every wait for the database, so a database that stops answering (a silent network, a
// frozen server) costs each request a known time instead of the kernel's TCP timeout. See
// docs/operations.md, "When the database stops answering".
import { Socket } from 'node:net';
import { Client, type ClientBase } from 'pg';

/** DATABASE_TIMEOUT_MS's default: far beyond any statement of this service, well within a proxy's patience. */
export const DEFAULT_DATABASE_TIMEOUT_MS = 5_000;

/**
 * How much longer than PostgreSQL's own statement_timeout the service waits for an answer: a
 * statement the server cancels is answered with its error (and the connection stays usable); only
 * silence beyond this closes the connection. Half a second, so that the request's answer, not
 * only the decision, comes within DATABASE_TIMEOUT_MS + 1 s on a busy machine: behind PgBouncer,
 * whose queue holds a query while no server answers, the answer took up to 80 ms more than the
 * guard (failover test). A server's cancellation answers in milliseconds.
 */
export const CANCEL_ANSWER_MS = 500;

/** As the key-change listener: TCP probes an idle connection after 10 s, so a dead peer is found. */
export const KEEPALIVE_DELAY_MS = 10_000;

/** The session setting that makes PostgreSQL cancel a statement running longer than the bound. */
export function statementTimeout(timeoutMs: number): string {
  return `SET statement_timeout = ${Math.trunc(timeoutMs)}`;
}

/**
 * Closes `client`'s connection when a statement sent on it has had no answer for `waitMs`. The
 * statement, and every one queued behind it (a transaction's ROLLBACK), then fails at once with
 * ETIMEDOUT, and the pool never hands the broken connection out again: after a silent network,
 * whatever was in flight on it is lost, and a reused connection would only wait once more.
 * `onAnswer` hears each answer (the database is there).
 */
export function closeWhenStalled(client: ClientBase, waitMs: number, onAnswer: () => void = () => undefined): void {
  if (!(client instanceof Client)) return;
  const { connection } = client;
  const socket = connection.stream;
  if (!(socket instanceof Socket)) return;
  // Bytes written after the server last said it was ready are a statement waiting for its answer.
  let answeredAt = socket.bytesWritten;
  connection.on('readyForQuery', () => {
    answeredAt = socket.bytesWritten;
    onAnswer();
  });
  // Fires after waitMs without a byte either way; on an idle connection that is normal.
  socket.setTimeout(waitMs);
  socket.on('timeout', () => {
    if (socket.bytesWritten <= answeredAt) return;
    // Timers run before the loop reads its sockets: after the loop was held up (a long GC, a CPU
    // shared with busier processes), an answer may be waiting unread. Judged after the next read
    // of the sockets, not before, so a late answer is an answer, not silence.
    const readBefore = socket.bytesRead;
    setImmediate(() => {
      if (socket.bytesRead === readBefore && socket.bytesWritten > answeredAt) socket.destroy(stalled(waitMs));
    });
  });
}

/**
 * Shaped as the socket's own timeout, so node-postgres, Prisma's adapter and databaseFailureOf
 * all read it as one.
 */
function stalled(waitMs: number): Error {
  return Object.assign(new Error(`the database did not answer within ${waitMs} ms; its connection was closed`), {
    code: 'ETIMEDOUT',
    errno: -110,
    syscall: 'read',
  });
}
