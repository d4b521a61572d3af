// The HTTP server metrics (OpenTelemetry's conventions as Prometheus names them) and the listener
// that serves them: counted exactly, labelled by route template, never on the public port.
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { createMetricsRegistry } from '../../src/infrastructure/metrics/metrics-registry';
import { createMetricsServer } from '../../src/interfaces/http/metrics-server';
import { httpMetrics, HttpMetrics } from '../../src/interfaces/http/middleware/http-metrics';
import { middlewareOf } from '../../src/interfaces/http/request-step';
import { startTestApp, type TestApp } from '../support/http/test-app';
import { openStream, serveOnLoopback } from '../support/http/event-stream-client';
import { holdWrites } from '../support/hold-writes';
import { samplesOf, sumOf } from '../support/metrics/exposition';
import { serverOnly } from '../support/server-only';
import { waitFor } from '../support/wait-for';

const DURATION = 'http_server_request_duration_seconds';

describe('HTTP server metrics', () => {
  const registry = createMetricsRegistry();
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ metrics: new HttpMetrics(registry) });
  });
  afterAll(() => t.close());

  it('counts every request by method, route template and status, exactly', async () => {
    const me = await t.signUp();
    const before = await registry.metrics();
    for (let n = 0; n < 3; n++) await request(t.app).get('/timelines').set('Authorization', me.auth);
    await request(t.app).get('/timeline/primary').set('Authorization', me.auth);
    await request(t.app).get('/timelines').set('Authorization', 'Bearer nope');
    await request(t.app).get('/no/such/path');
    const after = await registry.metrics();

    const count = (labels: Record<string, string>) =>
      sumOf(after, `${DURATION}_count`, labels) - sumOf(before, `${DURATION}_count`, labels);
    const get = { http_request_method: 'GET' };
    expect(count({ ...get, http_route: '/timelines', http_response_status_code: '200' })).toBe(3);
    expect(count({ ...get, http_route: '/timelines', http_response_status_code: '401' })).toBe(1);
    // The template, never the id: a label's values are the service's routes.
    expect(count({ ...get, http_route: '/timeline/:timeline_id', http_response_status_code: '200' })).toBe(1);
    expect(after).not.toContain('/timeline/primary');
    expect(count({ ...get, http_route: '', http_response_status_code: '404' })).toBe(1);
    expect(samplesOf(after, `${DURATION}_bucket`, { http_route: '/timelines', le: '10' }).length).toBeGreaterThan(0);
    expect(sumOf(after, 'http_server_active_requests')).toBe(0);
    // Process and runtime metrics come with them.
    for (const name of [
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_p99_seconds',
    ])
      expect(samplesOf(after, name).length).toBeGreaterThan(0);
  });

  it('counts problems by code and Idempotency-Key replays', async () => {
    const me = await t.signUp();
    const before = await registry.metrics();
    await request(t.app)
      .get('/timelines')
      .set('Authorization', `Bearer tns_${'Q'.repeat(43)}`);
    const keyed = () =>
      request(t.app)
        .post('/v1/anchors')
        .set('Authorization', me.auth)
        .set('Idempotency-Key', 'metered-once')
        .send({ description: 'Metered' });
    expect((await keyed()).status).toBe(201);
    expect((await keyed()).headers['idempotent-replayed']).toBe('true');
    const after = await registry.metrics();

    const increase = (name: string, labels: Record<string, string> = {}) =>
      sumOf(after, name, labels) - sumOf(before, name, labels);
    expect(increase('tns_http_problems_total', { code: 'invalid_api_key' })).toBe(1);
    expect(increase('tns_idempotency_replays_total')).toBe(1);
  });

  it("counts a keyed request's problem by its code, first answered and replayed", async () => {
    const me = await t.signUp();
    const before = await registry.metrics();
    const keyed = () =>
      request(t.app)
        .post('/v1/anchors')
        .set('Authorization', me.auth)
        .set('Idempotency-Key', 'metered-refusal')
        .send({ description: '' });
    expect((await keyed()).body.code).toBe('validation_failed');
    const replay = await keyed();
    expect([replay.body.code, replay.headers['idempotent-replayed']]).toEqual(['validation_failed', 'true']);
    const after = await registry.metrics();

    const increase =
      sumOf(after, 'tns_http_problems_total', { code: 'validation_failed' }) -
      sumOf(before, 'tns_http_problems_total', { code: 'validation_failed' });
    expect(increase).toBe(2);
  });

  it('counts the problem of the answer a retry is sent, not of its own run', async () => {
    const me = await t.signUp();
    const before = await registry.metrics();
    const keyed = () =>
      request(t.app).post('/v1/pause-time').set('Authorization', me.auth).set('Idempotency-Key', 'paused-once');
    expect((await keyed()).status).toBe(200);
    // Its own run finds the clock paused already, and is dropped for the first answer.
    const replay = await keyed();
    expect([replay.status, replay.headers['idempotent-replayed']]).toEqual([200, 'true']);
    const after = await registry.metrics();

    const problems = { code: 'clock_already_paused' };
    expect(sumOf(after, 'tns_http_problems_total', problems) - sumOf(before, 'tns_http_problems_total', problems)).toBe(
      0,
    );
  });

  it('does not count an Idempotency-Key before it is honoured: its request still arriving', async () => {
    const me = await t.signUp();
    const served = await serveOnLoopback(t.app);
    try {
      const inUse = async () => sumOf(await registry.metrics(), 'tns_idempotency_keys_in_use');
      const payload = JSON.stringify({ description: 'Held' });
      // A keyed request whose body is still coming: its key is not claimed, and may yet be refused.
      const req = httpRequest(`${served.url}/v1/anchors`, {
        method: 'POST',
        headers: {
          Authorization: me.auth,
          'Idempotency-Key': 'held-open',
          'Content-Type': 'application/json',
          'Content-Length': String(payload.length),
        },
      });
      const answered = new Promise<number>((resolve, reject) => {
        req.once('response', (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.once('error', reject);
      });
      req.write(payload.slice(0, 5));
      await waitFor(async () => sumOf(await registry.metrics(), 'http_server_active_requests') === 1, {
        what: 'the request in flight',
      });
      expect(await inUse()).toBe(0);
      req.end(payload.slice(5));
      expect(await answered).toBe(201);
      expect(await inUse()).toBe(0);
    } finally {
      await served.close();
    }
  });

  serverOnly(() => {
    it('counts the Idempotency-Key of a request while it is honoured', async () => {
      const me = await t.signUp();
      const inUse = async () => sumOf(await registry.metrics(), 'tns_idempotency_keys_in_use');
      // The account's write waits behind another writer: the key is claimed and being answered.
      const release = await holdWrites(t.prisma, me.id);
      let answered: Promise<request.Response> | undefined;
      try {
        answered = request(t.app)
          .post('/v1/anchors')
          .set('Authorization', me.auth)
          .set('Idempotency-Key', 'held-in-use')
          .send({ description: 'Held' })
          .then((response) => response);
        await waitFor(async () => (await inUse()) === 1, { what: 'the key in use' });
      } finally {
        await release();
      }
      expect((await answered).status).toBe(201);
      expect(await inUse()).toBe(0);
    });
  });

  it('counts an open event stream as active, and does not time it', async () => {
    const me = await t.signUp();
    const served = await serveOnLoopback(t.app);
    try {
      const stream = openStream(
        `${served.url}/v1/monitor-events?location=Here&time_range=1600-01-01T00:00:00Z/1600-01-02T00:00:00Z`,
        me.auth,
      );
      await stream.waitFor(1);
      const open = await registry.metrics();
      // What tns_event_stream_messages_total reads (service-metrics.test.ts).
      expect(t.eventStreams.delivered.get('caught-up')).toBe(1);
      expect(sumOf(open, 'http_server_active_requests', { http_request_method: 'GET' })).toBe(1);
      stream.close();
      await waitFor(async () => sumOf(await registry.metrics(), 'http_server_active_requests') === 0, {
        what: 'the stream to end',
      });
      const closed = await registry.metrics();
      expect(sumOf(closed, `${DURATION}_count`, { http_route: '/v1/monitor-events' })).toBe(0);
    } finally {
      await served.close();
    }
  });

  it('answers 404 to /metrics on the public port', async () => {
    expect((await request(t.app).get('/metrics')).status).toBe(404);
  });
});

describe('HTTP server metrics of a request refused before its route', () => {
  it('label a sign-up refused by the per-address limit with the path it asked for', async () => {
    const registry = createMetricsRegistry();
    const t = await startTestApp({ metrics: new HttpMetrics(registry), rateLimit: { accountsPerMinute: 1 } });
    try {
      const signUp = () =>
        request(t.app)
          .post('/v1/accounts')
          .send({ email: `limited-${Date.now()}@example.com`, password: 'x' });
      await signUp();
      expect((await signUp()).status).toBe(429);
      const text = await registry.metrics();
      const labels = { http_route: '/v1/accounts', http_response_status_code: '429' };
      expect(sumOf(text, `${DURATION}_count`, labels)).toBe(1);
    } finally {
      await t.close();
    }
  });
});

describe('the scheme and the failure of each request', () => {
  it('label url_scheme as the client used it, and error_type a 5xx only, absent otherwise', async () => {
    const registry = createMetricsRegistry();
    const app = express();
    // As TRUST_PROXY sets it: a proxy's X-Forwarded-Proto is the client's scheme.
    app.set('trust proxy', true);
    app.use(middlewareOf([httpMetrics(new HttpMetrics(registry))]));
    app.get('/answered', (_req, res) => void res.status(200).end());
    app.get('/refused', (_req, res) => void res.status(404).end());
    app.get('/failed', (_req, res) => void res.status(503).end());
    await request(app).get('/answered');
    await request(app).get('/answered').set('X-Forwarded-Proto', 'https');
    // Not a scheme a client uses: counted as http, so that the label keeps two values.
    await request(app).get('/answered').set('X-Forwarded-Proto', 'gopher');
    await request(app).get('/refused');
    await request(app).get('/failed').set('X-Forwarded-Proto', 'https');
    const text = await registry.metrics();

    const counts = text
      .split('\n')
      .filter((line) => line.startsWith(`${DURATION}_count{`))
      .map((line) => line.slice(line.indexOf('{'), line.indexOf('}') + 1) + line.slice(line.lastIndexOf(' ')));
    expect(counts.sort()).toEqual(
      [
        '{http_request_method="GET",url_scheme="http",http_route="/answered",http_response_status_code="200"} 2',
        '{http_request_method="GET",url_scheme="https",http_route="/answered",http_response_status_code="200"} 1',
        '{http_request_method="GET",url_scheme="http",http_route="/refused",http_response_status_code="404"} 1',
        '{http_request_method="GET",url_scheme="https",http_route="/failed",http_response_status_code="503",' +
          'error_type="503"} 1',
      ].sort(),
    );
  });
});

describe('the metrics listener', () => {
  it('serves GET /metrics in the exposition format, and nothing else', async () => {
    const registry = createMetricsRegistry();
    const failures: unknown[] = [];
    const server = createMetricsServer(registry, (error) => failures.push(error));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const scrape = await fetch(`${url}/metrics`);
      expect(scrape.status).toBe(200);
      expect(scrape.headers.get('content-type')).toBe(registry.contentType);
      expect(await scrape.text()).toContain('# TYPE process_resident_memory_bytes gauge');
      expect((await fetch(`${url}/`)).status).toBe(404);
      expect((await fetch(`${url}/metrics`, { method: 'POST' })).status).toBe(404);
      expect(failures).toEqual([]);
    } finally {
      server.close();
    }
  });
});
