import { randomUUID } from 'node:crypto';
import type { Server, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { ANSWER_HEADERS } from './middleware/answer-headers';
import { problemAnswer } from './middleware/problem-handler';
import { Problem } from './problem';
import type { AnswerLocals } from './answer-locals';

/**
 * Requests Node's HTTP parser refuses before Express sees them (headers over 16 KiB, a broken
 * request line) or that it gives up on (head or body not in within the HTTP server's timeouts)
 * would get a bare status with no body; answer them in the API's problem shape too, with a request
 * id in the answer and a line in the log, as every other answer has. A request whose head was read
 * (its body timed out) keeps the id it was given and its own request log line, which says it was
 * refused; one whose head was not gets a new id and a line here.
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  // The unfinished answers of each connection (several when requests are pipelined).
  const answering = new WeakMap<Duplex, Set<ServerResponse>>();
  server.on('request', (req, res: ServerResponse) => {
    const unfinished = answering.get(req.socket) ?? new Set<ServerResponse>();
    answering.set(req.socket, unfinished.add(res));
    // 'close' comes once per answer: right after 'finish' when it was sent, alone when cut short.
    res.once('close', () => unfinished.delete(res));
  });
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    const unfinished = [...(answering.get(socket) ?? [])];
    // The request whose body did not all arrive, if that is what timed out.
    const receiving = unfinished.find((res) => !res.req.complete);
    // Any other answer due on this connection comes first, and one being sent is under way: a
    // problem written now would be taken for it or land inside it, so the connection is cut instead.
    if (!socket.writable || unfinished.some((res) => res.headersSent || res !== receiving)) {
      socket.destroy();
      return;
    }
    const problem = problemOf(error);
    const given = receiving?.getHeader('X-Request-Id');
    const requestId = typeof given === 'string' ? given : randomUUID();
    const answer = problemAnswer(problem, requestId);
    const body = JSON.stringify(answer.body);
    const title = String(problem.toJson().title);
    const headers = Object.entries({ ...ANSWER_HEADERS, 'X-Request-Id': requestId })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    if (receiving) {
      // Its request log line, written when the connection closes, says how it ended (request-log.ts).
      // Node's own response object: Express gave it `locals` only if the request reached the app.
      const { locals } = receiving as ServerResponse & { locals?: AnswerLocals };
      if (locals) {
        Object.assign(locals, { refusedStatus: problem.status, problemCode: problem.code, failureReason: error.code });
      }
    } else {
      // As the request log's line of a refused request: the connection's peer (a proxy's address
      // behind one: the head that would say more was not read) and what Node's parser said.
      const remoteAddress = socket instanceof Socket ? socket.remoteAddress : undefined;
      logger.info(
        {
          req: { remoteAddress },
          res: { status: problem.status },
          request_id: requestId,
          code: problem.code,
          reason: error.code,
        },
        'request refused',
      );
    }
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
