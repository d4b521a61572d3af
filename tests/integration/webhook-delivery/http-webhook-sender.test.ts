// One attempt against real receivers on 127.0.0.1, over HTTP with WEBHOOK_ALLOW_PRIVATE_URLS on (the
// receivers are local), and refused with it off. TLS: https-webhook-sender.test.ts.
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import type { OutgoingWebhook } from '../../../src/core/ports/webhook-sender';
import {
  HttpWebhookSender,
  WEBHOOK_USER_AGENT,
} from '../../../src/infrastructure/webhook-delivery/http-webhook-sender';
import {
  type HostResolver,
  ResolvedWebhookDestinations,
} from '../../../src/infrastructure/webhook-delivery/resolved-destinations';
import {
  type Answer,
  closedPort,
  type LocalReceiver,
  startReceiver,
} from '../../support/webhook-delivery/local-receiver';
import { resolverTable } from '../../support/webhook-delivery/resolver-table';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: { note: 'ünïcode' } });
const webhookTo = (url: string): OutgoingWebhook => ({
  url,
  messageId: `msg_${'1f'.repeat(16)}`,
  body,
  secrets: [secret],
  origin: null,
});
const systemClock = { now: () => new Date() };

const opened: { close(): unknown }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

async function receiver(answer: Answer, options?: Parameters<typeof startReceiver>[1]): Promise<LocalReceiver> {
  const started = await startReceiver(answer, options);
  opened.push(started);
  return started;
}

function sender(
  resolve: HostResolver = resolverTable({}),
  { allowPrivate = true, timeoutMs = 5_000, clock = systemClock } = {},
): HttpWebhookSender {
  const made = new HttpWebhookSender(new ResolvedWebhookDestinations(allowPrivate, resolve), clock, { timeoutMs });
  opened.push(made);
  return made;
}

const signatureHeaders = (headers: IncomingHttpHeaders) => ({
  'webhook-id': String(headers['webhook-id']),
  'webhook-timestamp': String(headers['webhook-timestamp']),
  'webhook-signature': String(headers['webhook-signature']),
});

const answering =
  (status: number, text = '', headers: Record<string, string> = {}): Answer =>
  (response) =>
    response.writeHead(status, headers).end(text);

describe('one webhook attempt over HTTP', () => {
  it('POSTs the body, signed, and reports a 2xx with its answer and duration', async () => {
    const endpoint = await receiver(answering(200, 'thanks'));
    const result = await sender().send(webhookTo(`http://127.0.0.1:${endpoint.port}/hooks?source=tns`));

    expect(result).toEqual({
      status: 200,
      error: null,
      durationMs: expect.any(Number),
      answer: 'thanks',
      retryAfterSeconds: null,
    });
    const [request] = endpoint.received;
    expect(request).toMatchObject({ method: 'POST', url: '/hooks?source=tns', body });
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': WEBHOOK_USER_AGENT,
      'webhook-id': `msg_${'1f'.repeat(16)}`,
      'content-length': String(Buffer.byteLength(body)),
    });
    expect(new Webhook(secret).verify(request.body, signatureHeaders(request.headers))).toEqual(JSON.parse(body));
  });

  it('reports a 500 and a 410 with their status and answer', async () => {
    const failing = await receiver(answering(500, 'database down'));
    const gone = await receiver(answering(410));
    expect(await sender().send(webhookTo(`http://127.0.0.1:${failing.port}/`))).toMatchObject({
      status: 500,
      error: null,
      answer: 'database down',
    });
    expect(await sender().send(webhookTo(`http://127.0.0.1:${gone.port}/`))).toMatchObject({
      status: 410,
      error: null,
      answer: '',
    });
  });

  it("reads a 429's Retry-After in seconds and a 503's as an HTTP-date", async () => {
    const at = new Date('2030-03-01T12:00:00Z');
    const clock = { now: () => at };
    const busy = await receiver(answering(429, 'slow down', { 'Retry-After': '120' }));
    const down = await receiver(answering(503, '', { 'Retry-After': new Date(at.getTime() + 90_000).toUTCString() }));
    const send = sender(undefined, { clock });
    expect(await send.send(webhookTo(`http://127.0.0.1:${busy.port}/`))).toMatchObject({
      status: 429,
      retryAfterSeconds: 120,
    });
    expect(await send.send(webhookTo(`http://127.0.0.1:${down.port}/`))).toMatchObject({
      status: 503,
      retryAfterSeconds: 90,
    });
  });

  it('follows no redirect: a 3xx is a failed attempt', async () => {
    const elsewhere = await receiver(answering(200));
    const redirecting = await receiver(answering(307, 'moved', { Location: `http://127.0.0.1:${elsewhere.port}/` }));
    const result = await sender().send(webhookTo(`http://127.0.0.1:${redirecting.port}/`));
    expect(result).toMatchObject({ status: 307, error: 'redirect', answer: 'moved' });
    expect(elsewhere.received).toHaveLength(0);
  });

  it('gives up at the deadline when the answer does not come, or stops coming', async () => {
    const silent = await receiver(() => undefined);
    const started = Date.now();
    const result = await sender(undefined, { timeoutMs: 300 }).send(webhookTo(`http://127.0.0.1:${silent.port}/`));
    expect(result).toMatchObject({ status: null, error: 'timeout', answer: '' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(3_000);

    const stalling = await receiver((response) => response.writeHead(200).write('partial'));
    const stalled = await sender(undefined, { timeoutMs: 300 }).send(webhookTo(`http://127.0.0.1:${stalling.port}/`));
    expect(stalled).toMatchObject({ status: 200, error: 'timeout', answer: 'partial' });
  });

  it('counts the time to resolve the name within the deadline', async () => {
    const hanging: HostResolver = () => new Promise(() => undefined);
    const result = await sender(hanging, { timeoutMs: 200 }).send(webhookTo('http://hangs.example.test/'));
    expect(result).toMatchObject({ status: null, error: 'timeout' });
  });

  it('reads at most 64 KiB of an answer, keeps its first KiB and stops reading', async () => {
    let finished = false;
    const flooding = await receiver((response) => {
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      // Writes as long as the client reads: 64 MiB, unless it stops.
      let left = 1024;
      const more = () => {
        while (left > 0 && !response.destroyed) {
          left -= 1;
          if (!response.write(chunk)) {
            response.once('drain', more);
            return;
          }
        }
        if (left === 0) response.end(() => (finished = true));
      };
      more();
    });
    const result = await sender().send(webhookTo(`http://127.0.0.1:${flooding.port}/`));
    expect(result).toEqual({
      status: 200,
      error: 'too_large',
      durationMs: expect.any(Number),
      answer: 'x'.repeat(1024),
      retryAfterSeconds: null,
    });
    expect(finished).toBe(false);
  });

  it('reads an answer of exactly 64 KiB whole, and calls one byte more too large', async () => {
    const full = await receiver(answering(200, 'y'.repeat(64 * 1024)));
    expect(await sender().send(webhookTo(`http://127.0.0.1:${full.port}/`))).toMatchObject({
      status: 200,
      error: null,
      answer: 'y'.repeat(1024),
    });
    const over = await receiver(answering(200, 'z'.repeat(64 * 1024 + 1)));
    expect(await sender().send(webhookTo(`http://127.0.0.1:${over.port}/`))).toMatchObject({
      status: 200,
      error: 'too_large',
      answer: 'z'.repeat(1024),
    });
  });

  it('says refused when nothing listens', async () => {
    const port = await closedPort();
    expect(await sender().send(webhookTo(`http://127.0.0.1:${port}/`))).toMatchObject({
      status: null,
      error: 'refused',
    });
  });

  it("connects to the address the check allowed, whatever the name's own resolution says", async () => {
    // The name would reach the decoy by the system's resolver (localhost is 127.0.0.1, or ::1); the
    // service's resolver says 127.0.0.2, where the real receiver listens on the same port.
    const endpoint = await receiver(answering(204), { host: '127.0.0.2' });
    const decoy = await receiver(answering(500), { host: '127.0.0.1', port: endpoint.port });
    const resolve = resolverTable({ localhost: ['127.0.0.2'] });
    const result = await sender(resolve).send(webhookTo(`http://localhost:${endpoint.port}/in`));

    expect(result).toMatchObject({ status: 204, error: null });
    expect(endpoint.received).toHaveLength(1);
    expect(endpoint.received[0]).toMatchObject({ localAddress: '127.0.0.2' });
    expect(endpoint.received[0].headers.host).toBe(`localhost:${endpoint.port}`);
    expect(decoy.received).toHaveLength(0);
    expect(resolve).toHaveBeenCalledTimes(1);
  });

  it('resolves the name once per attempt: an answer that changes (DNS rebinding) is never reached', async () => {
    const endpoint = await receiver(answering(200), { host: '127.0.0.2' });
    const decoy = await receiver(answering(200), { host: '127.0.0.1', port: endpoint.port });
    const answers = ['127.0.0.2', '127.0.0.1'];
    const rebinding: HostResolver = jest.fn(async () => [{ address: answers.shift() ?? '127.0.0.1', family: 4 }]);
    await sender(rebinding).send(webhookTo(`http://rebind.example.test:${endpoint.port}/`));

    expect(rebinding).toHaveBeenCalledTimes(1);
    expect(endpoint.received).toHaveLength(1);
    expect(decoy.received).toHaveLength(0);
  });
  it('sends nothing to a URL that is no HTTP one, even with private addresses allowed', async () => {
    expect(await sender().send(webhookTo('ftp://127.0.0.1/'))).toMatchObject({ error: 'address_not_allowed' });
    expect(await sender().send(webhookTo('not a url'))).toMatchObject({ error: 'address_not_allowed' });
  });
});

describe('one webhook attempt with WEBHOOK_ALLOW_PRIVATE_URLS off', () => {
  it('sends nothing to a loopback address, literal or resolved, nor to a name that does not resolve', async () => {
    const endpoint = await receiver(answering(200));
    const resolve = resolverTable({ 'innocent.example.test': ['127.0.0.1'] });
    const refusing = sender(resolve, { allowPrivate: false });

    for (const url of [`http://127.0.0.1:${endpoint.port}/`, `http://innocent.example.test:${endpoint.port}/`])
      expect(await refusing.send(webhookTo(url))).toEqual({
        status: null,
        error: 'address_not_allowed',
        durationMs: expect.any(Number),
        answer: '',
        retryAfterSeconds: null,
      });
    expect(await refusing.send(webhookTo('https://gone.example.test/'))).toMatchObject({ error: 'dns' });
    expect(endpoint.received).toHaveLength(0);
  });
});
