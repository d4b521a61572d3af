// Each attempt a CLIENT span by OpenTelemetry's HTTP client conventions, the child of what runs it
// and linked to the trace of the write that caused its message; its URL without secrets.
import { context, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { OutgoingWebhook } from '../../../src/core/ports/webhook-sender';
import { HttpWebhookSender } from '../../../src/infrastructure/webhook-delivery/http-webhook-sender';
import { ResolvedWebhookDestinations } from '../../../src/infrastructure/webhook-delivery/resolved-destinations';
import { type InMemoryTracing, parentOf, startInMemoryTracing } from '../../support/telemetry/in-memory-tracing';
import { type LocalReceiver, startReceiver } from '../../support/webhook-delivery/local-receiver';
import { resolverTable } from '../../support/webhook-delivery/resolver-table';

const WRITER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const WRITER_SPAN = 'b7ad6b7169203331';
const secret = `whsec_${Buffer.from('a secret of thirty-two bytes ...').toString('base64')}`;

let tracing: InMemoryTracing;
let endpoint: LocalReceiver;
const senders: HttpWebhookSender[] = [];
beforeAll(async () => {
  endpoint = await startReceiver((response, received) =>
    response.writeHead(received.url.startsWith('/broken') ? 500 : 204).end(),
  );
});
beforeEach(() => {
  tracing = startInMemoryTracing();
});
afterEach(async () => {
  senders.splice(0).forEach((sender) => sender.close());
  await tracing.close();
});
afterAll(() => endpoint.close());

function sender(tracer: Tracer | undefined, allowPrivate = true): HttpWebhookSender {
  const destinations = new ResolvedWebhookDestinations(allowPrivate, resolverTable({}));
  const made = new HttpWebhookSender(destinations, { now: () => new Date() }, { tracer, timeoutMs: 5_000 });
  senders.push(made);
  return made;
}

const webhook = (url: string, origin: string | null): OutgoingWebhook => ({
  url,
  messageId: `msg_${'3c'.repeat(16)}`,
  body: '{"type":"webhook.test"}',
  secrets: [secret],
  origin,
});

/** Sends within a span of the test's, as a job's process span runs its attempt. */
async function sentWithin(sending: HttpWebhookSender, outgoing: OutgoingWebhook) {
  const job = tracing.tracer.startSpan('process webhook-delivery');
  const result = await context.with(trace.setSpan(context.active(), job), () => sending.send(outgoing));
  job.end();
  const [span] = tracing.named('POST');
  return { result, span, job };
}

it("is a CLIENT span of the POST, child of the job's span, linked to the writer's trace", async () => {
  const origin = `00-${WRITER_TRACE}-${WRITER_SPAN}-01`;
  const url = `http://user:pass@127.0.0.1:${endpoint.port}/hooks?token=s3cr3t`;
  const { result, span, job } = await sentWithin(sender(tracing.tracer), webhook(url, origin));

  expect(result.status).toBe(204);
  expect(span.kind).toBe(SpanKind.CLIENT);
  expect(parentOf(span)).toBe(job.spanContext().spanId);
  expect(span.spanContext().traceId).toBe(job.spanContext().traceId);
  expect(span.links.map((link) => [link.context.traceId, link.context.spanId])).toEqual([[WRITER_TRACE, WRITER_SPAN]]);
  expect(span.attributes).toEqual({
    'http.request.method': 'POST',
    'url.full': `http://REDACTED:REDACTED@127.0.0.1:${endpoint.port}/hooks?REDACTED`,
    'server.address': '127.0.0.1',
    'server.port': endpoint.port,
    'http.response.status_code': 204,
  });
  expect(span.status.code).toBe(SpanStatusCode.UNSET);
});

it('names a failed answer in error.type and marks the span failed', async () => {
  const { span } = await sentWithin(sender(tracing.tracer), webhook(`http://127.0.0.1:${endpoint.port}/broken`, null));
  expect(span.attributes).toMatchObject({ 'http.response.status_code': 500, 'error.type': '500' });
  expect(span.status.code).toBe(SpanStatusCode.ERROR);
  // No writer's trace: nothing to link to.
  expect(span.links).toEqual([]);
});

it('names an address refused in error.type, with no status, and sends nothing', async () => {
  const before = endpoint.received.length;
  const url = `https://127.0.0.1:${endpoint.port}/hooks`;
  const { result, span } = await sentWithin(sender(tracing.tracer, false), webhook(url, null));
  expect(result.error).toBe('address_not_allowed');
  expect(span.attributes['error.type']).toBe('address_not_allowed');
  expect(span.attributes).not.toHaveProperty('http.response.status_code');
  expect(span.status.code).toBe(SpanStatusCode.ERROR);
  expect(endpoint.received).toHaveLength(before);
});

it('links no writer whose trace was not sampled, or is no traceparent', async () => {
  for (const origin of [`00-${WRITER_TRACE}-${WRITER_SPAN}-00`, 'not a traceparent']) {
    const { span } = await sentWithin(sender(tracing.tracer), webhook(`http://127.0.0.1:${endpoint.port}/`, origin));
    expect(span.links).toEqual([]);
    await tracing.close();
    tracing = startInMemoryTracing();
  }
});

it('makes no span without a tracer', async () => {
  const origin = `00-${WRITER_TRACE}-${WRITER_SPAN}-01`;
  const { result } = await sentWithin(sender(undefined), webhook(`http://127.0.0.1:${endpoint.port}/`, origin));
  expect(result.status).toBe(204);
  expect(tracing.named('POST')).toEqual([]);
});
