// One attempt over TLS to a local receiver whose certificate (self-signed, made here) names
// hooks.example.test: the connection goes to the checked address, the certificate is verified
// against the URL's name.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { OutgoingWebhook } from '../../../src/core/ports/webhook-sender';
import { HttpWebhookSender } from '../../../src/infrastructure/webhook-delivery/http-webhook-sender';
import { ResolvedWebhookDestinations } from '../../../src/infrastructure/webhook-delivery/resolved-destinations';
import { type LocalReceiver, startReceiver } from '../../support/webhook-delivery/local-receiver';
import { resolverTable } from '../../support/webhook-delivery/resolver-table';
import { selfSignedCertificate } from '../../support/webhook-delivery/self-signed-certificate';

const NAME = 'hooks.example.test';
const certificate = selfSignedCertificate([NAME]);
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: {} });
const webhookTo = (url: string): OutgoingWebhook => ({
  url,
  messageId: `msg_${'2e'.repeat(16)}`,
  body,
  secrets: [secret],
  origin: null,
});

// Both names lead to the receiver; only the first is on its certificate.
const resolve = resolverTable({ [NAME]: ['127.0.0.1'], 'other.example.test': ['127.0.0.1'] });
const senders: HttpWebhookSender[] = [];
let endpoint: LocalReceiver;

beforeAll(async () => {
  endpoint = await startReceiver((response) => response.writeHead(200).end('ok'), { tls: certificate });
});
afterEach(() => senders.splice(0).forEach((sender) => sender.close()));
afterAll(() => endpoint.close());

/** A sender trusting the receiver's certificate, or only the system's authorities. */
function sender(trusting = true): HttpWebhookSender {
  const ca = trusting ? certificate.cert : undefined;
  const made = new HttpWebhookSender(new ResolvedWebhookDestinations(true, resolve), { now: () => new Date() }, { ca });
  senders.push(made);
  return made;
}

describe('one webhook attempt over HTTPS', () => {
  it("reaches the checked address and verifies the certificate against the URL's name", async () => {
    const result = await sender().send(webhookTo(`https://${NAME}:${endpoint.port}/hooks`));

    expect(result).toMatchObject({ status: 200, error: null, answer: 'ok' });
    const received = endpoint.received.at(-1);
    expect(received).toMatchObject({ servername: NAME, localAddress: '127.0.0.1', body });
    expect(received?.headers.host).toBe(`${NAME}:${endpoint.port}`);
    const {
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': signature,
    } = received?.headers ?? {};
    const headers = {
      'webhook-id': String(id),
      'webhook-timestamp': String(timestamp),
      'webhook-signature': String(signature),
    };
    expect(new Webhook(secret).verify(body, headers)).toBeTruthy();
  });

  it('says tls for a certificate of another name, though the address is the same', async () => {
    const before = endpoint.received.length;
    const result = await sender().send(webhookTo(`https://other.example.test:${endpoint.port}/hooks`));
    expect(result).toMatchObject({ status: null, error: 'tls' });
    expect(endpoint.received).toHaveLength(before);
  });

  it('says tls for a certificate nobody vouches for', async () => {
    const result = await sender(false).send(webhookTo(`https://${NAME}:${endpoint.port}/hooks`));
    expect(result).toMatchObject({ status: null, error: 'tls' });
  });

  it('says tls when the endpoint does not speak TLS', async () => {
    const plain = await startReceiver((response) => response.end());
    try {
      const result = await sender().send(webhookTo(`https://${NAME}:${plain.port}/`));
      expect(result).toMatchObject({ status: null, error: 'tls' });
      expect(plain.received).toHaveLength(0);
    } finally {
      await plain.close();
    }
  });
});
