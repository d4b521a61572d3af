import type { CommonPasswords } from '../core/ports/common-passwords';
import type { CredentialHasher } from '../core/ports/credential-hasher';
import type { EventFeed } from '../core/ports/event-feed';
import type { FailedAttempts } from '../core/ports/failed-attempts';
import type { ForegroundWork } from '../core/ports/foreground-work';
import type { IdGenerator } from '../core/ports/id-generator';
import type { RateCounterStore } from '../core/ports/rate-counter-store';
import type { SignInEvents } from '../core/ports/sign-in-events';
import type { TransactionBoundary } from '../core/ports/transaction-boundary';
import type { VerifiedKeyCache } from '../core/ports/verified-key-cache';
import type { WallClock } from '../core/ports/wall-clock';
import type { WebhookDestinations } from '../core/ports/webhook-destinations';
import type { WebhookUrlPolicy } from '../core/domain/webhook-endpoint';
import type { WebhookJobs } from '../core/ports/webhook-jobs';
import type { WebhookMessages } from '../core/ports/webhook-messages';
import type { WebhookDeliveries, WebhookPayloads } from '../core/ports/webhook-deliveries';
import type { WebhookSender } from '../core/ports/webhook-sender';
import type { RetryPolicy } from '../core/use-cases/webhooks/deliver-webhook-message';

// Injection tokens of the ports, in one place; use cases are bound by their own class. Each is a
// `const` of its own `unique symbol` type, which is what lets `Ports` say which port it stands for.
export const transactionBoundary = Symbol.for('time-navigation.TransactionBoundary');
export const foregroundWork = Symbol.for('time-navigation.ForegroundWork');
export const wallClock = Symbol.for('time-navigation.WallClock');
export const idGenerator = Symbol.for('time-navigation.IdGenerator');
export const credentialHasher = Symbol.for('time-navigation.CredentialHasher');
export const commonPasswords = Symbol.for('time-navigation.CommonPasswords');
export const rateCounterStore = Symbol.for('time-navigation.RateCounterStore');
export const verifiedKeyCache = Symbol.for('time-navigation.VerifiedKeyCache');
export const eventFeed = Symbol.for('time-navigation.EventFeed');
export const failedApiKeys = Symbol.for('time-navigation.FailedApiKeys');
export const signInEvents = Symbol.for('time-navigation.SignInEvents');
export const webhookDestinations = Symbol.for('time-navigation.WebhookDestinations');
/** Not a port but a setting the core reads (WEBHOOK_ALLOW_PRIVATE_URLS), bound as one. */
export const webhookUrlPolicy = Symbol.for('time-navigation.WebhookUrlPolicy');
export const webhookMessages = Symbol.for('time-navigation.WebhookMessages');
export const webhookJobs = Symbol.for('time-navigation.WebhookJobs');
export const webhookDeliveries = Symbol.for('time-navigation.WebhookDeliveries');
export const webhookPayloads = Symbol.for('time-navigation.WebhookPayloads');
export const webhookSender = Symbol.for('time-navigation.WebhookSender');
/** Not a port but a setting the core reads (WEBHOOK_RETRY_SCHEDULE, and the jitter's draw), bound as one. */
export const webhookRetries = Symbol.for('time-navigation.WebhookRetries');

/** The port each token stands for: the compiler checks bindings (bindings.ts) against it. */
export interface Ports {
  [transactionBoundary]: TransactionBoundary;
  [foregroundWork]: ForegroundWork;
  [wallClock]: WallClock;
  [idGenerator]: IdGenerator;
  [credentialHasher]: CredentialHasher;
  [commonPasswords]: CommonPasswords;
  [rateCounterStore]: RateCounterStore;
  [verifiedKeyCache]: VerifiedKeyCache;
  [eventFeed]: EventFeed;
  [failedApiKeys]: FailedAttempts;
  [signInEvents]: SignInEvents;
  [webhookDestinations]: WebhookDestinations;
  [webhookUrlPolicy]: WebhookUrlPolicy;
  [webhookMessages]: WebhookMessages;
  [webhookJobs]: WebhookJobs;
  [webhookDeliveries]: WebhookDeliveries;
  [webhookPayloads]: WebhookPayloads;
  [webhookSender]: WebhookSender;
  [webhookRetries]: RetryPolicy;
}
