import 'reflect-metadata';
import { buildContainer } from '../../../src/composition/container';
import { webhookDestinations, webhookUrlPolicy } from '../../../src/composition/tokens';
import type { WebhookUrlPolicy } from '../../../src/core/domain/webhook-endpoint';
import type { WebhookDestinations } from '../../../src/core/ports/webhook-destinations';
import type { PrismaClient } from '../../../src/infrastructure/database/driver/prisma-client';
import type { SqlRunner } from '../../../src/infrastructure/database/driver/sql-runner';

// The service's composition holds webhook endpoints to WEBHOOK_ALLOW_PRIVATE_URLS in both places
// that read it: the URL's scheme (the use case's policy) and where its host leads (the destinations).
describe("the service's container, for webhook endpoints", () => {
  const database = { prisma: {} as PrismaClient, sql: {} as SqlRunner };
  const loopback = new URL('https://127.0.0.1/hooks');

  it('takes https and public addresses only, unless private URLs are allowed', async () => {
    const closed = buildContainer(database);
    expect(closed.get<WebhookUrlPolicy>(webhookUrlPolicy)).toEqual({ allowPrivateUrls: false });
    await expect(closed.get<WebhookDestinations>(webhookDestinations).check(loopback)).resolves.toEqual({
      allowed: false,
      reason: 'address_not_allowed',
    });

    const open = buildContainer({ ...database, webhookAllowPrivateUrls: true });
    expect(open.get<WebhookUrlPolicy>(webhookUrlPolicy)).toEqual({ allowPrivateUrls: true });
    await expect(open.get<WebhookDestinations>(webhookDestinations).check(loopback)).resolves.toEqual({
      allowed: true,
      addresses: ['127.0.0.1'],
    });
  });
});
