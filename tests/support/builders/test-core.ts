import { Registry } from 'prom-client';
import { AuthenticateApiKey } from '../../../src/core/use-cases/accounts/authenticate-api-key';
import { ChangePassword } from '../../../src/core/use-cases/sessions/change-password';
import { SignInMetrics } from '../../../src/infrastructure/metrics/sign-in-metrics';
import {
  DEFAULT_FAILED_API_KEYS,
  MemoryFailedAttempts,
} from '../../../src/infrastructure/throttling/memory-failed-attempts';
import { CreateAccount } from '../../../src/core/use-cases/accounts/create-account';
import { CreateApiKey } from '../../../src/core/use-cases/api-keys/create-api-key';
import { ListApiKeys } from '../../../src/core/use-cases/api-keys/list-api-keys';
import { RevokeApiKey } from '../../../src/core/use-cases/api-keys/revoke-api-key';
import { RollApiKey } from '../../../src/core/use-cases/api-keys/roll-api-key';
import { UpdateApiKey } from '../../../src/core/use-cases/api-keys/update-api-key';
import { LogIn } from '../../../src/core/use-cases/sessions/log-in';
import { LogOut } from '../../../src/core/use-cases/sessions/log-out';
import { OpenConsole } from '../../../src/core/use-cases/sessions/open-console';
import { ResolveSession } from '../../../src/core/use-cases/sessions/resolve-session';
import { SignUp } from '../../../src/core/use-cases/sessions/sign-up';
import { CreateAnchor } from '../../../src/core/use-cases/anchors/create-anchor';
import { PauseTime } from '../../../src/core/use-cases/clock/pause-time';
import { ResumeTime } from '../../../src/core/use-cases/clock/resume-time';
import { ShiftTime } from '../../../src/core/use-cases/clock/shift-time';
import { ListEvents } from '../../../src/core/use-cases/events/list-events';
import { ManipulateEvent } from '../../../src/core/use-cases/events/manipulate-event';
import { RegisterItem } from '../../../src/core/use-cases/items/register-item';
import { CheckParadox } from '../../../src/core/use-cases/paradoxes/check-paradox';
import { MonitorParadox } from '../../../src/core/use-cases/paradoxes/monitor-paradox';
import { CreateTimeline } from '../../../src/core/use-cases/timelines/create-timeline';
import { GetTimeline } from '../../../src/core/use-cases/timelines/get-timeline';
import { ListTimelines } from '../../../src/core/use-cases/timelines/list-timelines';
import { Travel } from '../../../src/core/use-cases/travels/travel';
import { TravelToMoment } from '../../../src/core/use-cases/travels/travel-to-moment';
import { CreateWebhookEndpoint } from '../../../src/core/use-cases/webhook-endpoints/create-webhook-endpoint';
import { DeleteWebhookEndpoint } from '../../../src/core/use-cases/webhook-endpoints/delete-webhook-endpoint';
import {
  DisableWebhookEndpoint,
  EnableWebhookEndpoint,
} from '../../../src/core/use-cases/webhook-endpoints/endpoint-state';
import { GetWebhookEndpoint } from '../../../src/core/use-cases/webhook-endpoints/get-webhook-endpoint';
import { ListWebhookEndpoints } from '../../../src/core/use-cases/webhook-endpoints/list-webhook-endpoints';
import { RollWebhookSecret } from '../../../src/core/use-cases/webhook-endpoints/roll-webhook-secret';
import type { WebhookUrlPolicy } from '../../../src/core/domain/webhook-endpoint';
import { LruVerifiedKeyCache } from '../../../src/infrastructure/api-key-cache/lru-verified-key-cache';
import {
  FakeCredentialHasher,
  FakeWebhookDestinations,
  FrozenWallClock,
  type InMemoryBoundaryOptions,
  InMemoryDatabase,
  InMemoryIdempotencyStore,
  InMemoryTransactionBoundary,
  InThreadCommonPasswords,
  SequentialIdGenerator,
} from '../in-memory';

export const PRESENT = '2030-01-01T12:00:00Z';
/** The client address a core test's requests come from, for the throttles that count per client. */
export const CLIENT = '192.0.2.1';

/** The core wired over in-memory fakes, with every use case, as the composition root would. */
export function createTestCore(
  start: string = PRESENT,
  boundary: InMemoryBoundaryOptions = {},
  webhookUrls: WebhookUrlPolicy = { allowPrivateUrls: false },
) {
  const database = new InMemoryDatabase();
  const transactions = new InMemoryTransactionBoundary(database, boundary);
  const clock = new FrozenWallClock(start);
  const ids = new SequentialIdGenerator();
  const hasher = new FakeCredentialHasher();
  const commonPasswords = new InThreadCommonPasswords();
  // The service's counter of password attempts, read by the tests that look at it.
  const metrics = new Registry();
  const signInEvents = new SignInMetrics(metrics);
  const createAccount = new CreateAccount(transactions, hasher, ids, clock, commonPasswords);
  const resolveSession = new ResolveSession(transactions, hasher, clock);
  // The service's in-memory cache, told of committed key changes as the database's NOTIFY tells it.
  const keyCache = new LruVerifiedKeyCache({ maxEntries: 1_000 });
  const checkParadox = new CheckParadox(transactions);
  // The service's own counter of failed keys, at its default limit.
  const failedApiKeys = new MemoryFailedAttempts(DEFAULT_FAILED_API_KEYS);
  database.onApiKeyChange((keyId) => keyCache.forget(keyId));
  const webhookDestinations = new FakeWebhookDestinations(webhookUrls.allowPrivateUrls);
  return {
    database,
    transactions,
    /** Idempotency keys, whose requests keep their unit-of-work rules in these fakes too. */
    keys: new InMemoryIdempotencyStore(transactions),
    clock,
    ids,
    hasher,
    commonPasswords,
    keyCache,
    createAccount,
    failedApiKeys,
    metrics,
    signInEvents,
    authenticateApiKey: new AuthenticateApiKey(transactions, hasher, clock, keyCache, failedApiKeys),
    signUp: new SignUp(createAccount, transactions, hasher, ids, clock),
    logIn: new LogIn(transactions, hasher, ids, clock, commonPasswords, signInEvents),
    changePassword: new ChangePassword(transactions, hasher, clock, commonPasswords, signInEvents),
    logOut: new LogOut(transactions, hasher, clock),
    resolveSession,
    openConsole: new OpenConsole(resolveSession, transactions, hasher, clock),
    listApiKeys: new ListApiKeys(transactions, clock),
    createApiKey: new CreateApiKey(transactions, hasher, ids, clock),
    rollApiKey: new RollApiKey(transactions, hasher, ids, clock),
    revokeApiKey: new RevokeApiKey(transactions, clock),
    updateApiKey: new UpdateApiKey(transactions, clock),
    createAnchor: new CreateAnchor(transactions, ids, clock),
    createTimeline: new CreateTimeline(transactions, ids, clock),
    getTimeline: new GetTimeline(transactions, clock),
    listTimelines: new ListTimelines(transactions, clock),
    pauseTime: new PauseTime(transactions, clock),
    resumeTime: new ResumeTime(transactions, clock),
    shiftTime: new ShiftTime(transactions, clock),
    travel: new Travel(transactions, ids, clock),
    travelToMoment: new TravelToMoment(transactions, ids, clock),
    registerItem: new RegisterItem(transactions, ids, clock),
    listEvents: new ListEvents(transactions),
    manipulateEvent: new ManipulateEvent(transactions, ids, clock),
    checkParadox,
    monitorParadox: new MonitorParadox(transactions, checkParadox),
    webhookDestinations,
    createWebhookEndpoint: new CreateWebhookEndpoint(transactions, webhookDestinations, ids, clock, webhookUrls),
    listWebhookEndpoints: new ListWebhookEndpoints(transactions),
    getWebhookEndpoint: new GetWebhookEndpoint(transactions),
    deleteWebhookEndpoint: new DeleteWebhookEndpoint(transactions),
    rollWebhookSecret: new RollWebhookSecret(transactions, ids, clock),
    enableWebhookEndpoint: new EnableWebhookEndpoint(transactions),
    disableWebhookEndpoint: new DisableWebhookEndpoint(transactions),
  };
}

export type TestCore = ReturnType<typeof createTestCore>;
