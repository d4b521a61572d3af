import type { WebhookEndpoint } from '../../../src/core/domain/webhook-endpoint';
import { at, givenAccounts, idsOf, type MakeRepositories, useRepositories } from './subject';

function anEndpoint(overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint {
  return {
    accountId: 'acc_1',
    id: 'whk_1',
    url: 'https://example.com/hooks',
    description: null,
    eventTypes: ['event.recorded'],
    status: 'enabled',
    disabledReason: null,
    secret: 'whsec_one',
    previousSecret: null,
    previousSecretUntil: null,
    failingSince: null,
    createdAt: at('2030-01-01T12:00:00.001Z'),
    ...overrides,
  };
}

/** WebhookEndpointRepository: an account's endpoints, paged by creation then id; each change its own columns. */
export function webhookEndpointRepositoryContract(name: string, makeRepositories: MakeRepositories): void {
  describe(`${name}: WebhookEndpointRepository contract`, () => {
    const subject = useRepositories(makeRepositories);

    beforeEach(async () => {
      await givenAccounts(subject.current.repos, 'acc_1', 'acc_2');
    });

    it('finds an added endpoint, every field intact, nulls included', async () => {
      const { webhookEndpoints } = subject.current.repos;
      const bare = anEndpoint();
      const full = anEndpoint({
        id: 'whk_2',
        description: 'Production',
        eventTypes: ['timeline.window_closed', 'event.updated', 'event.recorded'],
        status: 'disabled',
        disabledReason: 'failing',
        previousSecret: 'whsec_zero',
        previousSecretUntil: at('2030-01-02T12:00:00.002Z'),
        failingSince: at('2029-12-27T12:00:00.003Z'),
      });
      await webhookEndpoints.add(bare);
      await webhookEndpoints.add(full);

      expect(await webhookEndpoints.findForAccount('acc_1', 'whk_1')).toEqual(bare);
      expect(await webhookEndpoints.findForAccount('acc_1', 'whk_2')).toEqual(full);
    });

    it("finds, counts and lists only the account's own, oldest first, paged after a cursor", async () => {
      const { webhookEndpoints } = subject.current.repos;
      await webhookEndpoints.add(anEndpoint({ id: 'whk_b', createdAt: at('2030-01-01T12:00:00.000Z') }));
      await webhookEndpoints.add(anEndpoint({ id: 'whk_a', createdAt: at('2030-01-01T12:00:00.000Z') }));
      await webhookEndpoints.add(anEndpoint({ id: 'whk_0', createdAt: at('2030-01-01T11:00:00.000Z') }));
      await webhookEndpoints.add(anEndpoint({ id: 'whk_1', accountId: 'acc_2' }));

      expect(await webhookEndpoints.findForAccount('acc_2', 'whk_b')).toBeNull();
      expect(await webhookEndpoints.countForAccount('acc_1')).toBe(3);
      expect(await webhookEndpoints.countForAccount('acc_2')).toBe(1);
      const all = await webhookEndpoints.listForAccount('acc_1', { limit: 10, after: null });
      expect(idsOf(all)).toEqual(['whk_0', 'whk_a', 'whk_b']);
      const after = { createdAt: at('2030-01-01T12:00:00.000Z'), id: 'whk_a' };
      expect(idsOf(await webhookEndpoints.listForAccount('acc_1', { limit: 10, after }))).toEqual(['whk_b']);
      expect(idsOf(await webhookEndpoints.listForAccount('acc_1', { limit: 2, after: null }))).toEqual([
        'whk_0',
        'whk_a',
      ]);
    });

    it('saves the state alone, and the secrets alone, each leaving the other columns as they are', async () => {
      const { webhookEndpoints } = subject.current.repos;
      const stored = anEndpoint({ failingSince: at('2030-01-01T13:00:00.004Z') });
      await webhookEndpoints.add(stored);

      // What a delivery wrote meanwhile (its failure) is not undone by a roll made from an older read.
      await webhookEndpoints.saveSecrets(
        anEndpoint({
          status: 'disabled',
          secret: 'whsec_two',
          previousSecret: 'whsec_one',
          previousSecretUntil: at('2030-01-02T12:00:00.005Z'),
        }),
      );
      const rolled = {
        ...stored,
        secret: 'whsec_two',
        previousSecret: 'whsec_one',
        previousSecretUntil: at('2030-01-02T12:00:00.005Z'),
      };
      expect(await webhookEndpoints.findForAccount('acc_1', 'whk_1')).toEqual(rolled);

      await webhookEndpoints.saveState(
        anEndpoint({ status: 'disabled', disabledReason: 'by_owner', secret: 'whsec_stale', failingSince: null }),
      );
      expect(await webhookEndpoints.findForAccount('acc_1', 'whk_1')).toEqual({
        ...rolled,
        status: 'disabled',
        disabledReason: 'by_owner',
        failingSince: null,
      });
    });

    it("removes the account's endpoint of that id alone, and nothing for an unknown one", async () => {
      const { webhookEndpoints } = subject.current.repos;
      await webhookEndpoints.add(anEndpoint());
      await webhookEndpoints.add(anEndpoint({ id: 'whk_2' }));
      const theirs = anEndpoint({ accountId: 'acc_2' });
      await webhookEndpoints.add(theirs);

      await webhookEndpoints.remove('acc_1', 'whk_1');
      await webhookEndpoints.remove('acc_1', 'whk_unknown');

      expect(await webhookEndpoints.findForAccount('acc_1', 'whk_1')).toBeNull();
      expect(idsOf(await webhookEndpoints.listForAccount('acc_1', { limit: 10, after: null }))).toEqual(['whk_2']);
      expect(await webhookEndpoints.findForAccount('acc_2', 'whk_1')).toEqual(theirs);
    });

    it('refuses to save an endpoint that was never added', async () => {
      const { webhookEndpoints } = subject.current.repos;
      await expect(webhookEndpoints.saveState(anEndpoint({ id: 'whk_none' }))).rejects.toThrow();
      await expect(webhookEndpoints.saveSecrets(anEndpoint({ id: 'whk_none' }))).rejects.toThrow();
    });
  });
}
