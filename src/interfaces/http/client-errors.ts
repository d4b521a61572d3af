import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { Problem } from './problem';

/**
 * Requests Node's HTTP parser refuses before Express sees them (headers over 16 KiB, a broken
 * request line) would get a bare status with no body; answer them in the API's problem shape too.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const problem =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? new Problem(431, 'headers_too_large', 'The request line and headers are larger than the 16 KiB this service reads.')
        : new Problem(400, 'malformed_request', 'The request could not be read as HTTP/1.1.');
    const body = JSON.stringify(problem.toJson());
    const title = String(problem.toJson().title);
    socket.end(
      `HTTP/1.1 ${problem.status} ${title}\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
