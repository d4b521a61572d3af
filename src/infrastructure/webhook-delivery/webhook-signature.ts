import { createHmac } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

export interface SignedMessage {
  /** The message's id (`msg_…`): the same on every attempt, so a receiver can drop a repeat. */
  readonly messageId: string;
  /** When this attempt signs it: a receiver refuses a timestamp far from its own clock (replays). */
  readonly timestamp: Date;
  /** The body exactly as sent: the signature covers its bytes. */
  readonly body: string;
}

export interface WebhookSignatureHeaders {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
}

/**
 * Standard Webhooks' headers: `v1,` and the base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` under
 * each secret, space-separated, so that for a rolled secret's last day a receiver holding either
 * verifies the message.
 */
export function webhookSignatureHeaders(message: SignedMessage, secrets: readonly string[]): WebhookSignatureHeaders {
  if (secrets.length === 0) throw new RangeError('a webhook message is signed by at least one secret');
  const timestamp = String(Math.floor(message.timestamp.getTime() / 1000));
  const signed = `${message.messageId}.${timestamp}.${message.body}`;
  const signatures = secrets.map(
    (secret) => `v1,${createHmac('sha256', signingKey(secret)).update(signed, 'utf8').digest('base64')}`,
  );
  return {
    'webhook-id': message.messageId,
    'webhook-timestamp': timestamp,
    'webhook-signature': signatures.join(' '),
  };
}

/** The key is the secret's bytes: the base64 after its prefix, as the specification's libraries read it. */
function signingKey(secret: string): Buffer {
  // The message never repeats the secret.
  if (!secret.startsWith(SECRET_PREFIX)) throw new RangeError(`a webhook secret starts with ${SECRET_PREFIX}`);
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}
