// A webhook attempt's spans, from a traced write to its delivery, as a service process runs them:
// the job a CONSUMER span `process webhook-delivery`, its use case within, and the
// POST a CLIENT span linked to the span of the request that wrote the event. On PostgreSQL
// (DATABASE_URL) and on the embedded PGlite.
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import request from 'supertest';
import { buildContainer } from '../../../src/composition/container';
import type { ProcessJobQueue } from '../../../src/composition/job-queue';
import { startTestApp, type TestApp } from '../../support/http/test-app';
import { type InMemoryTracing, parentOf, startInMemoryTracing } from '../../support/telemetry/in-memory-tracing';
import { startInProcessQueue } from '../../support/webhook-delivery/in-process-queue';
import { type LocalReceiver, startReceiver } from '../../support/webhook-delivery/local-receiver';
import { waitFor } from '../../support/wait-for';

jest.setTimeout(60_000);

let tracing: InMemoryTracing;
let t: TestApp;
let queue: ProcessJobQueue;
let receiver: LocalReceiver;

beforeAll(async () => {
  tracing = startInMemoryTracing();
  receiver = await startReceiver((response) => response.writeHead(204).end());
  t = await startTestApp({ tracer: tracing.tracer, webhookAllowPrivateUrls: true });
  const container = buildContainer({
    prisma: t.prisma,
    sql: t.sql,
    webhookAllowPrivateUrls: true,
    tracer: tracing.tracer,
  });
  queue = await startInProcessQueue(t, container, { tracer: tracing.tracer });
});
afterAll(async () => {
  await queue?.stop();
  await t?.close();
  await receiver?.close();
  await tracing?.close();
});

const byId = (spans: ReadableSpan[], id: string) => spans.find((span) => span.spanContext().spanId === id);

it("makes the job a span, its POST a CLIENT span within it, linked to the writer's trace", async () => {
  const me = await t.signUp();
  const endpoint = await request(t.app)
    .post('/v1/webhook-endpoints')
    .set('Authorization', me.auth)
    .send({ url: `http://127.0.0.1:${receiver.port}/hooks`, event_types: ['event.recorded'] });
  expect(endpoint.status).toBe(201);
  const anchor = await request(t.app).post('/v1/anchors').set('Authorization', me.auth).send({ description: 'Traced' });
  expect(anchor.status).toBe(201);

  // The job's span ends last, once its attempt is recorded.
  const job = await waitFor(() => tracing.named('process webhook-delivery')[0], {
    what: "the job's span",
    timeoutMs: 20_000,
  });
  expect(receiver.received).toHaveLength(1);
  const spans = tracing.spans();
  const [post] = tracing.named('POST');
  const write = spans.find((span) => span.kind === SpanKind.SERVER && span.name === 'POST /v1/anchors');
  expect(write).toBeDefined();

  // The link leads into the write's trace, to a span of that request.
  expect(post.links).toHaveLength(1);
  const [link] = post.links;
  expect(link.context.traceId).toBe(write?.spanContext().traceId);
  expect(byId(spans, link.context.spanId)?.spanContext().traceId).toBe(write?.spanContext().traceId);
  expect(post.spanContext().traceId).not.toBe(write?.spanContext().traceId);

  // POST within the use case, within the job's span, a root of its own.
  const useCase = byId(spans, parentOf(post));
  expect(useCase?.name).toBe('DeliverWebhookMessage');
  expect(parentOf(useCase ?? post)).toBe(job.spanContext().spanId);
  expect(job.kind).toBe(SpanKind.CONSUMER);
  expect(parentOf(job)).toBe('');
  expect(job.attributes).toMatchObject({
    'messaging.system': 'pg-boss',
    'messaging.operation.type': 'process',
    'messaging.destination.name': 'webhook-delivery',
    'messaging.message.id': expect.any(String),
  });
  expect(post.attributes).toMatchObject({
    'http.request.method': 'POST',
    'url.full': `http://127.0.0.1:${receiver.port}/hooks`,
    'http.response.status_code': 204,
  });
});
