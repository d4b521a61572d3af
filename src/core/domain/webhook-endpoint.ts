import { InvalidField } from './errors';

/**
 * What an endpoint may subscribe to. `webhook.test` is not among them: the test route sends it to
 * the endpoint asked, whatever it subscribes to.
 */
export const WEBHOOK_EVENT_TYPES = ['event.recorded', 'event.updated', 'timeline.window_closed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Sent to an endpoint only when its owner asks (SendTestWebhook). */
export const WEBHOOK_TEST_TYPE = 'webhook.test';
/** Every type of message an endpoint may be sent: what it subscribes to, and a test. */
export const WEBHOOK_MESSAGE_TYPES = [...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_TYPE] as const;

export type WebhookEndpointStatus = 'enabled' | 'disabled';
/** Why an endpoint is disabled: it answered 410, every attempt failed for 5 days, or its owner said so. */
export type WebhookDisabledReason = 'gone' | 'failing' | 'by_owner';

/** Endpoints of one account: each change is recorded once per endpoint, so the bound is the write's cost. */
export const MAX_WEBHOOK_ENDPOINTS = 10;
/** Long enough for any URL a receiver needs (query tokens included), short enough to log and index. */
export const MAX_WEBHOOK_URL_LENGTH = 2_048;
/** How long a rolled secret keeps signing beside the new one, so a receiver switches without losing a message. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1_000;

/** The settings an endpoint's URL is read under (WEBHOOK_ALLOW_PRIVATE_URLS). */
export interface WebhookUrlPolicy {
  /** Development and tests: `http` too, and private addresses (the latter checked by WebhookDestinations). */
  readonly allowPrivateUrls: boolean;
}

export interface WebhookEndpoint {
  readonly accountId: string;
  /** whk_ and 32 hex digits. */
  readonly id: string;
  /** As the WHATWG URL parser writes it: where every delivery goes. */
  readonly url: string;
  readonly description: string | null;
  readonly eventTypes: readonly WebhookEventType[];
  readonly status: WebhookEndpointStatus;
  /** Null while enabled. */
  readonly disabledReason: WebhookDisabledReason | null;
  /** whsec_ and the base64 of 32 random bytes: signs every delivery; shown to its owner only when made. */
  readonly secret: string;
  /** The secret before the last roll, signing beside `secret` until `previousSecretUntil`. */
  readonly previousSecret: string | null;
  readonly previousSecretUntil: Date | null;
  /** The first failed attempt since the last delivery; null while deliveries succeed. */
  readonly failingSince: Date | null;
  readonly createdAt: Date;
}

/** A URL read as an endpoint's, or why it cannot be one (a phrase that follows the field's name). */
export type WebhookUrlReading =
  { readonly url: URL; readonly fault?: never } | { readonly url?: never; readonly fault: string };

/** Spaces and control characters, which the URL parser would strip or escape rather than refuse. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what a URL must not hold
const INVISIBLE = /[\u0000-\u0020\u007f-\u009f]/;

/**
 * Reads an endpoint's URL: absolute, `https` (or `http` where the policy allows private URLs), with
 * no user name or password (it would be sent to the receiver, and logged) and no fragment (which
 * no request carries), within MAX_WEBHOOK_URL_LENGTH as given and as written out. Where its host
 * leads is WebhookDestinations' to check.
 */
export function readWebhookUrl(text: string, policy: WebhookUrlPolicy): WebhookUrlReading {
  const tooLong = `must be shorter than or equal to ${MAX_WEBHOOK_URL_LENGTH} characters`;
  if (text.length > MAX_WEBHOOK_URL_LENGTH) return { fault: tooLong };
  if (INVISIBLE.test(text)) return { fault: 'must not contain white space or control characters' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { fault: 'must be an absolute URL, like https://example.com/webhooks' };
  }
  const schemes = policy.allowPrivateUrls ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol))
    return { fault: policy.allowPrivateUrls ? 'must be an https or http URL' : 'must be an https URL' };
  if (url.username !== '' || url.password !== '') return { fault: 'must not carry a user name or password' };
  if (url.hash !== '' || text.includes('#')) return { fault: 'must not have a #fragment, which no request carries' };
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) return { fault: `${tooLong} once written out in full` };
  return { url };
}

/** What is wrong with a list of event types, each a phrase that follows the field's name. */
export const EVENT_TYPE_FAULTS = {
  empty: 'must name at least one event type',
  unknown: `must name only ${WEBHOOK_EVENT_TYPES.join(', ')}`,
  repeated: 'must not name an event type twice',
} as const;

/** The event types as given, checked: at least one, each known, none twice. */
export function webhookEventTypes(types: readonly string[]): WebhookEventType[] {
  const known = types.filter((type): type is WebhookEventType => WEBHOOK_EVENT_TYPES.some((one) => one === type));
  if (types.length === 0) throw new InvalidField('event_types', EVENT_TYPE_FAULTS.empty);
  if (known.length !== types.length) throw new InvalidField('event_types', EVENT_TYPE_FAULTS.unknown);
  if (new Set(known).size !== known.length) throw new InvalidField('event_types', EVENT_TYPE_FAULTS.repeated);
  return known;
}

/** A new endpoint: enabled, with its first secret. */
export function newWebhookEndpoint(fields: {
  readonly accountId: string;
  readonly id: string;
  readonly url: URL;
  readonly description: string | null;
  readonly eventTypes: readonly string[];
  readonly secret: string;
  readonly createdAt: Date;
}): WebhookEndpoint {
  return {
    accountId: fields.accountId,
    id: fields.id,
    url: fields.url.href,
    description: fields.description,
    eventTypes: webhookEventTypes(fields.eventTypes),
    status: 'enabled',
    disabledReason: null,
    secret: fields.secret,
    previousSecret: null,
    previousSecretUntil: null,
    failingSince: null,
    createdAt: fields.createdAt,
  };
}

/** Disabled by its owner, whatever disabled it before: the owner's word is the reason now. */
export function disabledByOwner(endpoint: WebhookEndpoint): WebhookEndpoint {
  return { ...endpoint, status: 'disabled', disabledReason: 'by_owner' };
}

/**
 * Enabled again, its failures forgotten: an endpoint disabled after 5 days of failures starts a new
 * count rather than being disabled again at its next failure.
 */
export function enabled(endpoint: WebhookEndpoint): WebhookEndpoint {
  return { ...endpoint, status: 'enabled', disabledReason: null, failingSince: null };
}

/**
 * A new secret; the current one keeps signing beside it for SECRET_OVERLAP_MS. A roll within that
 * time keeps only the one it replaces: at most two secrets ever sign.
 */
export function rolled(endpoint: WebhookEndpoint, secret: string, now: Date): WebhookEndpoint {
  return {
    ...endpoint,
    secret,
    previousSecret: endpoint.secret,
    previousSecretUntil: new Date(now.getTime() + SECRET_OVERLAP_MS),
  };
}

/** The secrets that sign a delivery made at `now`: the current one, then the rolled one while it lasts. */
export function signingSecrets(endpoint: WebhookEndpoint, now: Date): string[] {
  const { secret, previousSecret, previousSecretUntil } = endpoint;
  const lasts = previousSecretUntil !== null && now.getTime() < previousSecretUntil.getTime();
  return previousSecret !== null && lasts ? [secret, previousSecret] : [secret];
}
