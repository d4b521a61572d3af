import { connect } from 'node:net';
import type { Server } from 'node:http';
import { createHttpServer } from '../../src/interfaces/http/http-server';
import { startTestApp, type TestApp } from '../support/http/test-app';
import { serviceLog } from '../support/service-log';

// docs/operations.md, "Slow clients": the HTTP server's own timeouts, on the server the service runs.
describe('slow clients are cut at the HTTP timeouts', () => {
  const TIMEOUTS = { requestMs: 1_500, headersMs: 1_000, keepAliveMs: 1_000 };
  /**
   * Node looks for expired requests once a second (and closes an idle connection up to a second
   * late); and slack for a busy machine.
   */
  const LATE_MS = 1_000 + 1_500;
  let t: TestApp;
  let server: Server;
  let port: number;
  const log = serviceLog();

  beforeAll(async () => {
    t = await startTestApp({ logger: log.logger });
    server = createHttpServer(t.app, TIMEOUTS, log.logger);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  /** Sends `head`, then `trickle` one byte every 100 ms; resolves with what came back once the server closed. */
  function send(head: string, trickle = ''): Promise<{ answer: string; closedAfterMs: number }> {
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const socket = connect(port, '127.0.0.1');
      let answer = '';
      let sent = 0;
      const drip = setInterval(() => {
        if (sent < trickle.length && socket.writable) socket.write(trickle[sent++]);
      }, 100);
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        clearInterval(drip);
        resolve({ answer, closedAfterMs: Date.now() - started });
      });
      socket.write(head);
    });
  }

  const expectTimedOut = (
    { answer, closedAfterMs }: { answer: string; closedAfterMs: number },
    boundMs: number,
  ): string | undefined => {
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(answer).toContain('Content-Type: application/problem+json; charset=utf-8');
    expect(answer).toContain('X-Content-Type-Options: nosniff');
    const id = /\r\nX-Request-Id: ([^\r]+)\r\n/.exec(answer)?.[1];
    expect(id).toBeDefined();
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual(
      expect.objectContaining({ status: 408, code: 'request_timeout', request_id: id }),
    );
    // One line for the request, found by the id its client was given.
    expect(log.lines.filter((line) => line.request_id === id)).toEqual([
      expect.objectContaining({ msg: 'request refused', res: { status: 408 }, reason: 'ERR_HTTP_REQUEST_TIMEOUT' }),
    ]);
    expect(closedAfterMs).toBeGreaterThanOrEqual(boundMs);
    expect(closedAfterMs).toBeLessThan(boundMs + LATE_MS);
    return id;
  };

  it('answers a body sent a byte at a time with 408 and closes its connection at the request timeout', async () => {
    const body = JSON.stringify({ email: 'slow@example.com', password: 'correct horse battery staple' });
    const head =
      'POST /v1/accounts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Request-Id: slow-upload-1\r\n' +
      `Content-Length: ${body.length}\r\n\r\n`;
    // Its head was read: it keeps the id its caller sent, and its line names what it asked for.
    expect(expectTimedOut(await send(head, body), TIMEOUTS.requestMs)).toBe('slow-upload-1');
    expect(log.lines.find((line) => line.request_id === 'slow-upload-1')).toMatchObject({
      req: { method: 'POST', path: '/v1/accounts' },
    });
    expect(await t.prisma.account.count({ where: { email: 'slow@example.com' } })).toBe(0);
  });

  it('answers a head sent a byte at a time with 408 at the headers timeout', async () => {
    expectTimedOut(
      await send('', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ' + 'x'.repeat(100)),
      TIMEOUTS.headersMs,
    );
  });

  it('answers a slow head after an answer on the same keep-alive connection with 408 too', async () => {
    const { answer } = await send(
      'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ' + 'x'.repeat(100),
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*"ok"}HTTP\/1\.1 408 Request Timeout\r\n/);
  });

  it('serves a request in time, then closes its idle keep-alive connection at the keep-alive timeout', async () => {
    const { answer, closedAfterMs } = await send('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(closedAfterMs).toBeGreaterThanOrEqual(TIMEOUTS.keepAliveMs);
    expect(closedAfterMs).toBeLessThan(TIMEOUTS.keepAliveMs + LATE_MS);
  });
});
