import { randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { webhookSignatureHeaders } from '../../../src/infrastructure/webhook-delivery/webhook-signature';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({
  type: 'event.recorded',
  timestamp: '2030-03-01T12:00:00.000Z',
  data: { event: { id: 'evt_1', note: 'naïve – “quoted” ✓' } },
});
const messageId = `msg_${'0a'.repeat(16)}`;

describe("Standard Webhooks' signature", () => {
  // The specification's library checks the timestamp against its own clock: sign as of now.
  const signedNow = (secrets: readonly string[], signedBody = body) =>
    webhookSignatureHeaders({ messageId, timestamp: new Date(), body: signedBody }, secrets);

  it("verifies with the specification's own library", () => {
    const secret = newSecret();
    const headers = signedNow([secret]);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('carries the message id and the time in whole seconds, and one v1 signature per secret', () => {
    const at = new Date('2030-03-01T12:00:00.987Z');
    const headers = webhookSignatureHeaders({ messageId, timestamp: at, body }, [newSecret()]);
    expect(headers['webhook-id']).toBe(messageId);
    expect(headers['webhook-timestamp']).toBe(String(Date.parse('2030-03-01T12:00:00Z') / 1000));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it("signs exactly as the specification's library does", () => {
    const secret = newSecret();
    const at = new Date('2030-03-01T12:00:00Z');
    const headers = webhookSignatureHeaders({ messageId, timestamp: at, body }, [secret]);
    expect(headers['webhook-signature']).toBe(new Webhook(secret).sign(messageId, at, body));
  });

  it('is signed by both secrets while a rolled one lasts, and each verifies on its own', () => {
    const [current, previous] = [newSecret(), newSecret()];
    const headers = signedNow([current, previous]);
    const signatures = headers['webhook-signature'].split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures.every((signature) => signature.startsWith('v1,'))).toBe(true);
    for (const secret of [current, previous]) expect(new Webhook(secret).verify(body, { ...headers })).toBeTruthy();
  });

  it('does not verify with another secret, another body or another id', () => {
    const secret = newSecret();
    const headers = signedNow([secret]);
    expect(() => new Webhook(newSecret()).verify(body, { ...headers })).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret).verify(body.replace('evt_1', 'evt_2'), { ...headers })).toThrow(
      WebhookVerificationError,
    );
    const otherId = { ...headers, 'webhook-id': `msg_${'0b'.repeat(16)}` };
    expect(() => new Webhook(secret).verify(body, otherId)).toThrow(WebhookVerificationError);
  });

  it('refuses to sign without a secret, or with one that is no whsec_ secret, never naming it', () => {
    expect(() => signedNow([])).toThrow(RangeError);
    const notOurs = randomBytes(32).toString('base64');
    expect(() => signedNow([notOurs])).toThrow(/starts with whsec_/);
    expect(() => signedNow([notOurs])).not.toThrow(notOurs);
  });
});
