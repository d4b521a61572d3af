import { once } from 'node:events';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import { startTestApp, type TestApp } from '../support/http/test-app';
import { waitFor } from '../support/wait-for';

/** Collects the service's log lines, parsed, as a log shipper would read them. */
function memoryLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      raw.push(chunk.toString());
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines, raw };
}

describe('operating the service', () => {
  const log = memoryLogger();
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ logger: log.logger });
  });
  afterAll(() => t.close());

  it('answers /healthz and /readyz without a key and without data', async () => {
    const health = await request(t.app).get('/healthz');
    expect([health.status, health.body]).toEqual([200, { status: 'ok' }]);
    const ready = await request(t.app).get('/readyz');
    expect([ready.status, ready.body]).toEqual([200, { status: 'ready' }]);
  });

  it('is not ready while a migration this build ships is not applied', async () => {
    const [last] = await t.prisma.$queryRaw<Array<{ id: string; migration_name: string }>>`
      SELECT id, migration_name FROM _prisma_migrations ORDER BY migration_name DESC LIMIT 1`;
    await t.prisma.$executeRaw`UPDATE _prisma_migrations SET rolled_back_at = now() WHERE id = ${last.id}`;
    try {
      const ready = await request(t.app).get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'not ready', reason: '1 migration(s) not applied' });
    } finally {
      await t.prisma.$executeRaw`UPDATE _prisma_migrations SET rolled_back_at = NULL WHERE id = ${last.id}`;
    }
  });

  it('is not ready while the database answers but cannot be read, and logs that fault once', async () => {
    const probe = async () => {
      const ready = await request(t.app).get('/readyz');
      return [ready.status, ready.body];
    };
    const notReadable = [503, { status: 'not ready', reason: 'the database cannot be read' }];
    await t.prisma.$executeRaw`ALTER TABLE _prisma_migrations RENAME TO _prisma_migrations_away`;
    try {
      for (let n = 0; n < 3; n += 1) expect(await probe()).toEqual(notReadable);
      // The whole error once, and each probe's own line says why it failed.
      expect(t.takeLoggedErrors()).toHaveLength(1);
      const probes = log.lines.filter((line) => (line.req as { path?: string } | undefined)?.path === '/readyz');
      expect(probes.at(-1)).toMatchObject({
        res: { status: 503 },
        reason: expect.stringMatching(/^readiness check failed: /),
      });
    } finally {
      await t.prisma.$executeRaw`ALTER TABLE _prisma_migrations_away RENAME TO _prisma_migrations`;
    }
    expect(await probe()).toEqual([200, { status: 'ready' }]);
    // Ready again in between: the same fault, come back, is logged again.
    await t.prisma.$executeRaw`ALTER TABLE _prisma_migrations RENAME TO _prisma_migrations_away`;
    try {
      expect(await probe()).toEqual(notReadable);
      expect(t.takeLoggedErrors()).toHaveLength(1);
    } finally {
      await t.prisma.$executeRaw`ALTER TABLE _prisma_migrations_away RENAME TO _prisma_migrations`;
    }
  });

  it('echoes a caller request id, or makes one, in the header and in every error body', async () => {
    const given = await request(t.app).get('/timelines').set('X-Request-Id', 'trace-123.abc');
    expect(given.headers['x-request-id']).toBe('trace-123.abc');
    expect(given.body.request_id).toBe('trace-123.abc');

    const made = await request(t.app).get('/timelines').set('X-Request-Id', 'not acceptable <script>');
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(made.body.request_id).toBe(made.headers['x-request-id']);
  });

  it('logs one JSON line per request: route, client, status, duration, account, request id; no secrets', async () => {
    const me = await t.signUp();
    log.lines.length = 0;
    log.raw.length = 0;
    await request(t.app)
      .get('/timelines?limit=5')
      .set('Authorization', me.auth)
      .set('Cookie', 'tns_session=secret-cookie')
      .set('X-Request-Id', 'req-anchor')
      // Not behind a trusted proxy: a client cannot name its own address.
      .set('X-Forwarded-For', '203.0.113.7');

    const requests = log.lines.filter((line) => line.request_id === 'req-anchor');
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      req: {
        method: 'GET',
        path: '/timelines',
        remoteAddress: expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$|^::1$/),
      },
      res: { status: 200 },
      responseTime: expect.any(Number),
      account_id: me.id,
      request_id: 'req-anchor',
    });
    const everything = log.raw.join('');
    expect(everything).not.toContain(me.apiKey);
    expect(everything).not.toContain('secret-cookie');
    expect(everything).not.toContain('correct horse battery');
  });

  it("names a problem's code in its line: which refusal of its status it was", async () => {
    await request(t.app)
      .get('/timelines')
      .set('Authorization', `Bearer tns_${'W'.repeat(43)}`)
      .set('X-Request-Id', 'req-refused');
    const [line] = log.lines.filter((each) => each.request_id === 'req-refused');
    expect(line).toMatchObject({ res: { status: 401 }, code: 'invalid_api_key' });
    // A keyed request's refusal is kept as its answer, and logged alike.
    const me = await t.signUp();
    await request(t.app)
      .post('/v1/anchors')
      .set('Authorization', me.auth)
      .set('Idempotency-Key', 'refused-once')
      .set('X-Request-Id', 'req-keyed')
      .send({ description: 42 });
    const [keyed] = log.lines.filter((each) => each.request_id === 'req-keyed');
    expect(keyed).toMatchObject({ res: { status: 400 }, code: 'validation_failed' });
    await request(t.app).get('/healthz').set('X-Request-Id', 'req-healthy');
    const [healthy] = log.lines.filter((each) => each.request_id === 'req-healthy');
    expect(healthy).not.toHaveProperty('code');
  });

  it('logs a request the client abandoned before the answer as aborted, once', async () => {
    const server = t.app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    if (typeof address !== 'object' || address === null) throw new Error('the server has no port');
    // Half a body, then the client hangs up: the service never gets to answer.
    const socket = connect(address.port, '127.0.0.1');
    await once(socket, 'connect');
    const received = once(server, 'request');
    socket.write(
      'POST /v1/accounts HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        'Content-Length: 100\r\nX-Request-Id: req-abandoned\r\n\r\n{"email":',
    );
    await received;
    socket.destroy();
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    // The response's 'close' follows its connection's on a later tick: wait for the line, then a
    // turn of the event loop more, in which a second line would have come.
    const abandoned = () => log.lines.filter((each) => each.request_id === 'req-abandoned');
    await waitFor(() => abandoned().length > 0, { what: "the abandoned request's log line" });
    await new Promise((resolve) => setImmediate(resolve));

    const lines = abandoned();
    expect(lines).toHaveLength(1);
    // The body never came whole, and the connection was gone before the service could start its
    // 400: an answer never started has no status.
    expect(lines[0]).toMatchObject({
      level: 40,
      msg: 'request aborted',
      req: { method: 'POST', path: '/v1/accounts' },
      res: { status: null },
    });
  });
});

describe('the request log behind a trusted proxy (TRUST_PROXY=1)', () => {
  const log = memoryLogger();
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ trustProxy: 1, logger: log.logger });
  });
  afterAll(() => t.close());

  it("logs the client's address the proxy saw, not one the client named before it", async () => {
    await request(t.app)
      .get('/healthz')
      .set('X-Forwarded-For', '198.51.100.9, 203.0.113.7')
      .set('X-Request-Id', 'req-proxied');

    expect(log.lines.find((line) => line.request_id === 'req-proxied')).toMatchObject({
      req: { remoteAddress: '203.0.113.7' },
    });
  });
});
