import {
  InvalidField,
  TooManyWebhookEndpoints,
  WebhookEndpointNotFound,
  WebhookUrlNotAllowed,
} from '../../../../src/core/domain/errors';
import { MAX_WEBHOOK_ENDPOINTS } from '../../../../src/core/domain/webhook-endpoint';
import { anAccount } from '../../../support/builders/account-mother';
import { createTestCore, PRESENT, type TestCore } from '../../../support/builders/test-core';

const HOUR = 3_600_000;

async function anAccountOf(core: TestCore = createTestCore()) {
  return { core, accountId: await anAccount(core) };
}

function create(core: TestCore, accountId: string, url = 'https://example.com/hooks') {
  return core.createWebhookEndpoint.execute({
    accountId,
    url,
    eventTypes: ['event.recorded', 'timeline.window_closed'],
    description: 'Production',
  });
}

describe('webhook endpoints', () => {
  it('registers an enabled endpoint with a secret of its own, stored as made', async () => {
    const { core, accountId } = await anAccountOf();
    const endpoint = await create(core, accountId, 'https://Example.com:443/hooks');

    expect(endpoint).toEqual({
      accountId,
      id: 'whk_1',
      url: 'https://example.com/hooks',
      description: 'Production',
      eventTypes: ['event.recorded', 'timeline.window_closed'],
      status: 'enabled',
      disabledReason: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      previousSecret: null,
      previousSecretUntil: null,
      failingSince: null,
      createdAt: new Date(PRESENT),
    });
    expect(core.database.webhookEndpoint(accountId, endpoint.id)).toEqual(endpoint);
    expect(core.webhookDestinations.asked).toEqual(['https://example.com/hooks']);
  });

  it('refuses an http URL while private URLs are off, as a field at fault, before asking where it leads', async () => {
    const { core, accountId } = await anAccountOf();
    const refusal = create(core, accountId, 'http://example.com/hooks');

    await expect(refusal).rejects.toBeInstanceOf(InvalidField);
    await expect(refusal).rejects.toMatchObject({
      code: 'validation_failed',
      details: { errors: [{ field: 'url', message: 'url must be an https URL' }] },
    });
    expect(core.webhookDestinations.asked).toEqual([]);
    expect(core.database.webhookEndpointsOf(accountId)).toEqual([]);
  });

  it('takes an http URL where private URLs are allowed', async () => {
    const { core, accountId } = await anAccountOf(createTestCore(PRESENT, {}, { allowPrivateUrls: true }));
    expect((await create(core, accountId, 'http://localhost:8080/hooks')).url).toBe('http://localhost:8080/hooks');
  });

  it.each([
    ['a private address', 'https://10.0.0.1/hooks', 'address_not_allowed'],
    ['a name that resolves to none', 'https://nowhere.invalid/hooks', 'dns'],
  ])('refuses %s where the destinations say so, storing nothing', async (_label, url, reason) => {
    const { core, accountId } = await anAccountOf();
    const refusal = create(core, accountId, url);

    await expect(refusal).rejects.toBeInstanceOf(WebhookUrlNotAllowed);
    await expect(refusal).rejects.toMatchObject({ code: 'webhook_url_not_allowed', details: { reason } });
    expect(core.webhookDestinations.asked).toEqual([url]);
    expect(core.database.webhookEndpointsOf(accountId)).toEqual([]);
  });

  it(`keeps at most ${MAX_WEBHOOK_ENDPOINTS} endpoints per account, and each account its own`, async () => {
    const { core, accountId } = await anAccountOf();
    const other = await anAccount(core);
    for (let n = 0; n < MAX_WEBHOOK_ENDPOINTS; n++) await create(core, accountId);

    const asked = core.webhookDestinations.asked.length;
    await expect(create(core, accountId)).rejects.toEqual(new TooManyWebhookEndpoints(MAX_WEBHOOK_ENDPOINTS));
    // Refused before its URL's host is looked up.
    expect(core.webhookDestinations.asked).toHaveLength(asked);
    await expect(create(core, accountId)).rejects.toMatchObject({ details: { limit: MAX_WEBHOOK_ENDPOINTS } });
    expect(core.database.webhookEndpointsOf(accountId)).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
    await expect(create(core, other)).resolves.toMatchObject({ accountId: other });
    // Deleting one makes room for another.
    await core.deleteWebhookEndpoint.execute({ accountId, endpointId: 'whk_1' });
    await expect(create(core, accountId)).resolves.toMatchObject({ accountId });
  });

  it('lists them oldest first, a page at a time, without another account’s', async () => {
    const { core, accountId } = await anAccountOf();
    const other = await anAccount(core);
    await create(core, other);
    for (let n = 0; n < 3; n++) {
      await create(core, accountId);
      core.clock.advanceBy(1_000);
    }

    const first = await core.listWebhookEndpoints.execute({ accountId, limit: 2 });
    expect(first.endpoints.map((endpoint) => endpoint.id)).toEqual(['whk_2', 'whk_3']);
    expect(first.next).toEqual({ createdAt: first.endpoints[1]?.createdAt, id: 'whk_3' });
    const second = await core.listWebhookEndpoints.execute({ accountId, limit: 2, after: first.next });
    expect(second.endpoints.map((endpoint) => endpoint.id)).toEqual(['whk_4']);
    expect(second.next).toBeNull();
    expect((await core.listWebhookEndpoints.execute({ accountId })).endpoints).toHaveLength(3);
  });

  it('reads one endpoint of the account, and no other account’s', async () => {
    const { core, accountId } = await anAccountOf();
    const other = await anAccount(core);
    const endpoint = await create(core, accountId);

    await expect(core.getWebhookEndpoint.execute({ accountId, endpointId: endpoint.id })).resolves.toEqual(endpoint);
    await expect(core.getWebhookEndpoint.execute({ accountId: other, endpointId: endpoint.id })).rejects.toEqual(
      new WebhookEndpointNotFound(endpoint.id),
    );
  });

  it('rolls the secret: a new one answered, the old one kept for 24 hours on the service’s clock', async () => {
    const { core, accountId } = await anAccountOf();
    const endpoint = await create(core, accountId);
    core.clock.advanceBy(HOUR);

    const rolled = await core.rollWebhookSecret.execute({ accountId, endpointId: endpoint.id });

    expect(rolled.secret).not.toBe(endpoint.secret);
    // Answered as stored: a page showing the new secret names the endpoint without reading it again.
    expect(rolled).toEqual({
      ...endpoint,
      secret: rolled.secret,
      previousSecret: endpoint.secret,
      previousSecretUntil: new Date(Date.parse(PRESENT) + 25 * HOUR),
    });
    expect(core.database.webhookEndpoint(accountId, endpoint.id)).toEqual(rolled);
  });

  it('disables by its owner’s word and enables again, its failures forgotten', async () => {
    const { core, accountId } = await anAccountOf();
    const endpoint = await create(core, accountId);
    const input = { accountId, endpointId: endpoint.id };

    const disabled = await core.disableWebhookEndpoint.execute(input);
    expect(disabled).toMatchObject({ status: 'disabled', disabledReason: 'by_owner' });
    expect(core.database.webhookEndpoint(accountId, endpoint.id)).toEqual(disabled);

    const again = await core.enableWebhookEndpoint.execute(input);
    expect(again).toEqual({ ...endpoint, status: 'enabled', disabledReason: null, failingSince: null });
    expect(core.database.webhookEndpoint(accountId, endpoint.id)).toEqual(again);
    // Enabling an enabled endpoint changes nothing.
    await expect(core.enableWebhookEndpoint.execute(input)).resolves.toEqual(again);
  });

  it('deletes an endpoint, after which it is unknown everywhere', async () => {
    const { core, accountId } = await anAccountOf();
    const endpoint = await create(core, accountId);
    const kept = await create(core, accountId);
    const input = { accountId, endpointId: endpoint.id };

    // Answered as it was: a page naming what it deleted need not read it first.
    await expect(core.deleteWebhookEndpoint.execute(input)).resolves.toEqual(endpoint);

    expect(core.database.webhookEndpointsOf(accountId)).toEqual([kept]);
    for (const act of [
      () => core.deleteWebhookEndpoint.execute(input),
      () => core.getWebhookEndpoint.execute(input),
      () => core.rollWebhookSecret.execute(input),
      () => core.enableWebhookEndpoint.execute(input),
      () => core.disableWebhookEndpoint.execute(input),
    ])
      await expect(act()).rejects.toBeInstanceOf(WebhookEndpointNotFound);
  });

  it('refuses every change of another account’s endpoint exactly as of an unknown one, changing nothing', async () => {
    const { core, accountId } = await anAccountOf();
    const mallory = await anAccount(core);
    const endpoint = await create(core, accountId);
    const before = core.database.contents();

    for (const endpointId of [endpoint.id, 'whk_unknown']) {
      const input = { accountId: mallory, endpointId };
      for (const act of [
        () => core.deleteWebhookEndpoint.execute(input),
        () => core.rollWebhookSecret.execute(input),
        () => core.enableWebhookEndpoint.execute(input),
        () => core.disableWebhookEndpoint.execute(input),
      ])
        await expect(act()).rejects.toEqual(new WebhookEndpointNotFound(endpointId));
    }
    expect(core.database.contents()).toEqual(before);
  });
});
