import { randomUUID } from 'node:crypto';
import type { Server, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { ANSWER_HEADERS } from './middleware/answer-headers';
import { problemAnswer } from './middleware/problem-handler';
import { Problem } from './problem';

/**
 * Requests Node's HTTP parser refuses before Express sees them (headers over 16 KiB, a broken
 * request line) or that it gives up on (head or body not in within the HTTP server's timeouts)
 * would get a bare status with no body; answer them in the API's problem shape too, with a request
 * id (a new one: the head that could carry the caller's was not read) in the answer and in a log
 * line, as every other answer has.
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  // The unfinished answers of each connection (several when requests are pipelined): while one is
  // being sent, a problem written to the socket would land inside it, so the connection is cut instead.
  const answering = new WeakMap<Duplex, Set<ServerResponse>>();
  server.on('request', (req, res: ServerResponse) => {
    const unfinished = answering.get(req.socket) ?? new Set<ServerResponse>();
    answering.set(req.socket, unfinished.add(res));
    const done = (): boolean => unfinished.delete(res);
    res.once('finish', done).once('close', done);
  });
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    const sending = [...(answering.get(socket) ?? [])].some((res) => res.headersSent);
    if (!socket.writable || sending) {
      socket.destroy();
      return;
    }
    const problem = problemOf(error);
    const requestId = randomUUID();
    const answer = problemAnswer(problem, requestId);
    const body = JSON.stringify(answer.body);
    const title = String(problem.toJson().title);
    const headers = Object.entries({ ...ANSWER_HEADERS, 'X-Request-Id': requestId })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    // As the request log's line of a refused request, with what Node's parser said of it.
    logger.info(
      {
        req: { remoteAddress: socket instanceof Socket ? socket.remoteAddress : undefined },
        res: { status: problem.status },
        request_id: requestId,
        reason: error.code,
      },
      'request refused',
    );
    // Then the connection is closed for good: a client that timed out must not keep it by sending on.
    socket.end(
      `HTTP/1.1 ${problem.status} ${title}\r\nContent-Type: application/problem+json; charset=utf-8\r\n${headers}` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      () => socket.destroy(),
    );
  });
}

function problemOf(error: Error & { code?: string }): Problem {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new Problem(
        431,
        'headers_too_large',
        'The request line and headers are larger than the 16 KiB this service reads.',
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new Problem(
        408,
        'request_timeout',
        'The request did not arrive in time: its head and body must be sent within the timeouts in docs/operations.md.',
      );
    default:
      return new Problem(400, 'malformed_request', 'The request could not be read as HTTP/1.1.');
  }
}
