import { InvalidField } from '../../../src/core/domain/errors';
import {
  disabledByOwner,
  enabled,
  MAX_WEBHOOK_URL_LENGTH,
  newWebhookEndpoint,
  readWebhookUrl,
  rolled,
  signingSecrets,
  webhookEventTypes,
  type WebhookEndpoint,
} from '../../../src/core/domain/webhook-endpoint';

const PUBLIC_ONLY = { allowPrivateUrls: false };
const PRIVATE_TOO = { allowPrivateUrls: true };
const NOW = new Date('2030-01-01T12:00:00Z');
const HOUR = 3_600_000;

function anEndpoint(overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint {
  return {
    ...newWebhookEndpoint({
      accountId: 'acc_1',
      id: 'whk_1',
      url: new URL('https://example.com/hooks'),
      description: null,
      eventTypes: ['event.recorded'],
      secret: 'whsec_first',
      createdAt: NOW,
    }),
    ...overrides,
  };
}

describe('readWebhookUrl', () => {
  it('reads an https URL and writes it out as the URL parser does', () => {
    const reading = readWebhookUrl('HTTPS://Example.COM:443/hooks?team=7', PUBLIC_ONLY);
    expect(reading.url?.href).toBe('https://example.com/hooks?team=7');
  });

  it.each([
    ['http, with private URLs off', 'http://example.com/hooks', 'must be an https URL'],
    ['another scheme', 'ftp://example.com/hooks', 'must be an https URL'],
    ['a relative URL', '/hooks', 'must be an absolute URL, like https://example.com/webhooks'],
    ['no URL at all', 'example.com', 'must be an absolute URL, like https://example.com/webhooks'],
    ['a user and password', 'https://ada:secret@example.com/hooks', 'must not carry a user name or password'],
    ['a user alone', 'https://ada@example.com/hooks', 'must not carry a user name or password'],
    ['a fragment', 'https://example.com/hooks#top', 'must not have a #fragment, which no request carries'],
    ['an empty fragment', 'https://example.com/hooks#', 'must not have a #fragment, which no request carries'],
    ['white space around it', ' https://example.com/hooks', 'must not contain white space or control characters'],
    ['a tab inside', 'https://exam\tple.com/', 'must not contain white space or control characters'],
    ['a newline inside', 'https://example.com/\nhooks', 'must not contain white space or control characters'],
  ])('refuses %s', (_label, text, fault) => {
    expect(readWebhookUrl(text, PUBLIC_ONLY)).toEqual({ fault });
  });

  it('takes http too where private URLs are allowed, and says so when it refuses another scheme', () => {
    expect(readWebhookUrl('http://127.0.0.1:8080/hooks', PRIVATE_TOO).url?.href).toBe('http://127.0.0.1:8080/hooks');
    expect(readWebhookUrl('ws://127.0.0.1/', PRIVATE_TOO)).toEqual({ fault: 'must be an https or http URL' });
  });

  it(`bounds the URL to ${MAX_WEBHOOK_URL_LENGTH} characters as given and as written out`, () => {
    const prefix = 'https://example.com/';
    expect(readWebhookUrl(prefix + 'a'.repeat(MAX_WEBHOOK_URL_LENGTH - prefix.length), PUBLIC_ONLY).url).toBeDefined();
    expect(readWebhookUrl(prefix + 'a'.repeat(MAX_WEBHOOK_URL_LENGTH + 1 - prefix.length), PUBLIC_ONLY)).toEqual({
      fault: `must be shorter than or equal to ${MAX_WEBHOOK_URL_LENGTH} characters`,
    });
    // Each é becomes %C3%A9: a third of the bound as given is beyond it once escaped.
    expect(readWebhookUrl(prefix + 'é'.repeat(1_000), PUBLIC_ONLY)).toEqual({
      fault: `must be shorter than or equal to ${MAX_WEBHOOK_URL_LENGTH} characters once written out in full`,
    });
  });
});

describe('webhookEventTypes', () => {
  it('keeps the types as given', () => {
    expect(webhookEventTypes(['timeline.window_closed', 'event.recorded'])).toEqual([
      'timeline.window_closed',
      'event.recorded',
    ]);
  });

  it.each([
    ['none', [], 'event_types must name at least one event type'],
    ['webhook.test, which only the test route sends', ['webhook.test'], 'event_types must name only'],
    ['an unknown type', ['event.recorded', 'event.deleted'], 'event_types must name only'],
    ['a type twice', ['event.updated', 'event.updated'], 'event_types must not name an event type twice'],
  ])('refuses %s, naming the field', (_label, types, message) => {
    let refusal: unknown;
    try {
      webhookEventTypes(types);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(InvalidField);
    expect(refusal).toMatchObject({ code: 'validation_failed' });
    expect((refusal as InvalidField).details).toEqual({
      errors: [{ field: 'event_types', message: expect.stringContaining(message) }],
    });
  });
});

describe('a webhook endpoint', () => {
  it('is made enabled, with one secret and no failures', () => {
    expect(anEndpoint()).toMatchObject({
      url: 'https://example.com/hooks',
      status: 'enabled',
      disabledReason: null,
      secret: 'whsec_first',
      previousSecret: null,
      previousSecretUntil: null,
      failingSince: null,
    });
  });

  it("is disabled by its owner's word, whatever disabled it before", () => {
    expect(disabledByOwner(anEndpoint())).toMatchObject({ status: 'disabled', disabledReason: 'by_owner' });
    const gone = anEndpoint({ status: 'disabled', disabledReason: 'gone' });
    expect(disabledByOwner(gone)).toMatchObject({ status: 'disabled', disabledReason: 'by_owner' });
  });

  it('is enabled with its reason and its days of failure forgotten', () => {
    const failing = anEndpoint({
      status: 'disabled',
      disabledReason: 'failing',
      failingSince: new Date(NOW.getTime() - 5 * 24 * HOUR),
    });
    expect(enabled(failing)).toMatchObject({ status: 'enabled', disabledReason: null, failingSince: null });
  });

  it('rolls its secret: the old one signs beside the new one for 24 hours, then no more', () => {
    const next = rolled(anEndpoint(), 'whsec_second', NOW);
    expect(next).toMatchObject({
      secret: 'whsec_second',
      previousSecret: 'whsec_first',
      previousSecretUntil: new Date(NOW.getTime() + 24 * HOUR),
    });
    expect(signingSecrets(next, NOW)).toEqual(['whsec_second', 'whsec_first']);
    expect(signingSecrets(next, new Date(NOW.getTime() + 24 * HOUR - 1))).toEqual(['whsec_second', 'whsec_first']);
    expect(signingSecrets(next, new Date(NOW.getTime() + 24 * HOUR))).toEqual(['whsec_second']);
  });

  it('keeps only the secret a second roll replaces: never three sign at once', () => {
    const twice = rolled(rolled(anEndpoint(), 'whsec_second', NOW), 'whsec_third', new Date(NOW.getTime() + HOUR));
    expect(signingSecrets(twice, new Date(NOW.getTime() + HOUR))).toEqual(['whsec_third', 'whsec_second']);
    expect(twice.previousSecretUntil).toEqual(new Date(NOW.getTime() + 25 * HOUR));
  });
});
