// The webhooks' ports and use cases (docs/webhooks.md): endpoints managed by requests; messages
// recorded, windows checked and attempts delivered by the job queue's workers (job-queue.ts).
import type { Tracer } from '@opentelemetry/api';
import type { Container } from 'inversify';
import { DEFAULT_RETRY_SCHEDULE_SECONDS } from '../core/domain/webhook-attempt-outcome';
import type { WallClock } from '../core/ports/wall-clock';
import type { WebhookDestinations } from '../core/ports/webhook-destinations';
import type { WebhookSender } from '../core/ports/webhook-sender';
import { CreateWebhookEndpoint } from '../core/use-cases/webhook-endpoints/create-webhook-endpoint';
import { DeleteWebhookEndpoint } from '../core/use-cases/webhook-endpoints/delete-webhook-endpoint';
import { DisableWebhookEndpoint, EnableWebhookEndpoint } from '../core/use-cases/webhook-endpoints/endpoint-state';
import { GetWebhookEndpoint } from '../core/use-cases/webhook-endpoints/get-webhook-endpoint';
import { ListWebhookDeliveries } from '../core/use-cases/webhook-endpoints/list-webhook-deliveries';
import { ListWebhookEndpoints } from '../core/use-cases/webhook-endpoints/list-webhook-endpoints';
import { ResendWebhookMessage } from '../core/use-cases/webhook-endpoints/resend-webhook-message';
import { RollWebhookSecret } from '../core/use-cases/webhook-endpoints/roll-webhook-secret';
import { SendTestWebhook } from '../core/use-cases/webhook-endpoints/send-test-webhook';
import { DeliverWebhookMessage } from '../core/use-cases/webhooks/deliver-webhook-message';
import { RecordWindowClosed } from '../core/use-cases/webhooks/record-window-closed';
import type { PrismaClient } from '../infrastructure/database/driver/generated/client';
import type { SqlRunner } from '../infrastructure/database/driver/sql-runner';
import { PostgresWebhookDeliveries } from '../infrastructure/persistence/postgres/webhook-deliveries';
import { PostgresWebhookJobs } from '../infrastructure/persistence/postgres/webhook-jobs';
import { PostgresWebhookMessages } from '../infrastructure/persistence/postgres/webhook-messages';
import { HttpWebhookSender } from '../infrastructure/webhook-delivery/http-webhook-sender';
import { ResolvedWebhookDestinations } from '../infrastructure/webhook-delivery/resolved-destinations';
import { ApiWebhookPayloads } from '../interfaces/http/presenters/webhook-payloads';
import { bindPort, type coreBinder } from './bindings';
import {
  foregroundWork,
  idGenerator,
  transactionBoundary,
  wallClock,
  webhookDeliveries,
  webhookDestinations,
  webhookJobs,
  webhookMessages,
  webhookPayloads,
  webhookRetries,
  webhookSender,
  webhookUrlPolicy,
} from './tokens';

export interface WebhookOptions {
  /** WEBHOOK_ALLOW_PRIVATE_URLS: `http` endpoints too, and private addresses. Off unless given. */
  readonly webhookAllowPrivateUrls?: boolean;
  /**
   * Where a webhook endpoint's URL may lead, checked when it is registered and before each attempt.
   * Default: its host resolved by the system's resolver, each address held to the policy above.
   */
  readonly webhookDestinations?: WebhookDestinations;
  /** WEBHOOK_RETRY_SCHEDULE: the waits before each retry, in seconds. Default: Standard Webhooks' schedule. */
  readonly webhookRetrySchedule?: readonly number[];
  /** How each attempt is sent. Default: over HTTP(S), to where the destinations let the URL lead now. */
  readonly webhookSender?: WebhookSender;
}

export function bindWebhookPorts(
  container: Container,
  database: { readonly prisma: PrismaClient; readonly sql: SqlRunner; readonly clock: WallClock },
  options: WebhookOptions & { readonly tracer?: Tracer },
): void {
  const allowPrivateUrls = options.webhookAllowPrivateUrls ?? false;
  const destinations = options.webhookDestinations ?? new ResolvedWebhookDestinations(allowPrivateUrls);
  bindPort(container, webhookDestinations, destinations);
  bindPort(container, webhookUrlPolicy, { allowPrivateUrls });
  bindPort(container, webhookMessages, new PostgresWebhookMessages(database.sql));
  bindPort(container, webhookJobs, new PostgresWebhookJobs(database.sql));
  bindPort(container, webhookDeliveries, new PostgresWebhookDeliveries(database.prisma, database.sql));
  bindPort(container, webhookPayloads, new ApiWebhookPayloads());
  const sender =
    options.webhookSender ?? new HttpWebhookSender(destinations, database.clock, { tracer: options.tracer });
  bindPort(container, webhookSender, sender);
  bindPort(container, webhookRetries, {
    scheduleSeconds: options.webhookRetrySchedule ?? DEFAULT_RETRY_SCHEDULE_SECONDS,
    random: Math.random,
  });
}

export function bindWebhookUseCases(bindCore: ReturnType<typeof coreBinder>): void {
  bindCore(CreateWebhookEndpoint, transactionBoundary, webhookDestinations, idGenerator, wallClock, webhookUrlPolicy);
  bindCore(ListWebhookEndpoints, transactionBoundary);
  bindCore(ListWebhookDeliveries, transactionBoundary, webhookDeliveries);
  bindCore(GetWebhookEndpoint, transactionBoundary);
  bindCore(RollWebhookSecret, transactionBoundary, idGenerator, wallClock);
  bindCore(EnableWebhookEndpoint, transactionBoundary);
  bindCore(DisableWebhookEndpoint, transactionBoundary);
  bindCore(DeleteWebhookEndpoint, transactionBoundary);
  bindCore(ResendWebhookMessage, transactionBoundary, webhookDeliveries, wallClock);
  bindCore(SendTestWebhook, transactionBoundary, webhookMessages);
  // Run by the job queue's workers (job-queue.ts), not by a request.
  bindCore(RecordWindowClosed, transactionBoundary, wallClock, webhookMessages, webhookJobs);
  bindCore(
    DeliverWebhookMessage,
    foregroundWork,
    webhookDeliveries,
    webhookPayloads,
    webhookSender,
    wallClock,
    webhookRetries,
  );
}
