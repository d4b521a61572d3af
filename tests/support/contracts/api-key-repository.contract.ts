import { permissionsOf } from '../../../src/core/domain/api-key-permissions';
import type { ApiKey } from '../../../src/core/domain/account';
import { at, givenAccounts, idsOf, type MakeRepositories, useRepositories } from './subject';

function aKey(overrides: Partial<ApiKey> = {}): ApiKey {
  return {
    id: 'key_1',
    accountId: 'acc_1',
    prefix: 'tns_000001_t',
    digest: 'digest-1',
    name: null,
    createdAt: at('2030-01-01T12:00:00.001Z'),
    lastUsedAt: null,
    revokedAt: null,
    expiresAt: null,
    permissions: null,
    ...overrides,
  };
}

/** ApiKeyRepository: keys found by digest (authentication) and, for their owner only, by id. */
export function apiKeyRepositoryContract(name: string, makeRepositories: MakeRepositories): void {
  describe(`${name}: ApiKeyRepository contract`, () => {
    const subject = useRepositories(makeRepositories);

    beforeEach(async () => {
      await givenAccounts(subject.current.repos, 'acc_1', 'acc_2');
    });

    it('finds an added key by its digest, every field intact, nulls included', async () => {
      const { apiKeys } = subject.current.repos;
      const bare = aKey();
      const full = aKey({
        id: 'key_2',
        digest: 'digest-2',
        name: 'CI',
        lastUsedAt: at('2030-01-02T00:00:00.002Z'),
        revokedAt: at('2030-01-03T00:00:00.003Z'),
        expiresAt: at('2030-01-04T00:00:00.004Z'),
      });
      await apiKeys.add(bare);
      await apiKeys.add(full);

      expect(await apiKeys.findByDigest('digest-1')).toEqual(bare);
      expect(await apiKeys.findByDigest('digest-2')).toEqual(full);
    });

    it('finds no key for an unknown digest, nor for a digest differing only in letter case', async () => {
      const { apiKeys } = subject.current.repos;
      await apiKeys.add(aKey({ digest: 'AbC' }));

      expect(await apiKeys.findByDigest('abc')).toBeNull();
      expect(await apiKeys.findByDigest('AbC%')).toBeNull();
      expect(await apiKeys.findByDigest('nope')).toBeNull();
    });

    it("finds a key by id for its owner only; lists only the account's keys, oldest first, revoked too", async () => {
      const { apiKeys } = subject.current.repos;
      await apiKeys.add(aKey({ id: 'key_b', digest: 'd-b', createdAt: at('2030-01-01T12:00:00.000Z') }));
      await apiKeys.add(
        aKey({
          id: 'key_a',
          digest: 'd-a',
          createdAt: at('2030-01-01T12:00:00.000Z'),
          revokedAt: at('2030-01-01T13:00:00Z'),
        }),
      );
      await apiKeys.add(aKey({ id: 'key_0', digest: 'd-0', createdAt: at('2030-01-01T11:00:00.000Z') }));
      await apiKeys.add(aKey({ id: 'key_x', digest: 'd-x', accountId: 'acc_2' }));

      expect((await apiKeys.findForAccount('acc_1', 'key_b'))?.digest).toBe('d-b');
      expect(await apiKeys.findForAccount('acc_2', 'key_b')).toBeNull();
      expect(idsOf(await apiKeys.listForAccount('acc_1'))).toEqual(['key_0', 'key_a', 'key_b']);
      expect(idsOf(await apiKeys.listForAccount('acc_2'))).toEqual(['key_x']);
    });

    it('saves the revocation, expiry and name of a key', async () => {
      const { apiKeys } = subject.current.repos;
      await apiKeys.add(aKey());
      const changed = aKey({
        name: 'renamed',
        revokedAt: at('2030-02-01T00:00:00.123Z'),
        expiresAt: at('2030-03-01T00:00:00.456Z'),
      });

      await apiKeys.save(changed);

      expect(await apiKeys.findByDigest('digest-1')).toEqual(changed);
    });

    it("keeps a restricted key's permissions, and saves a change of them", async () => {
      const { apiKeys } = subject.current.repos;
      const restricted = aKey({ permissions: permissionsOf({ anchors: 'write', events: 'read' }) });
      await apiKeys.add(restricted);
      expect(await apiKeys.findByDigest('digest-1')).toEqual(restricted);
      expect((await apiKeys.listForAccount('acc_1'))[0]?.permissions).toEqual(restricted.permissions);

      const narrowed = aKey({ permissions: permissionsOf({ events: 'read' }) });
      await apiKeys.save(narrowed);
      expect(await apiKeys.findForAccount('acc_1', 'key_1')).toEqual(narrowed);
    });

    it('records a use, counted on its own, unless one was recorded after `unlessSince`', async () => {
      const { repos, tx } = subject.current;
      await repos.apiKeys.add(aKey());
      const lastUse = async () => (await repos.apiKeys.findByDigest('digest-1'))?.lastUsedAt;
      const recordUse = (when: string, unlessSince: string) =>
        tx.count(({ keyUses }) => keyUses.record('key_1', at(when), at(unlessSince)));

      await recordUse('2030-01-01T12:00:00.500Z', '2030-01-01T11:59:00Z');
      expect(await lastUse()).toEqual(at('2030-01-01T12:00:00.500Z'));

      await recordUse('2030-01-01T12:00:30Z', '2030-01-01T11:59:30Z');
      expect(await lastUse()).toEqual(at('2030-01-01T12:00:00.500Z'));

      await recordUse('2030-01-01T12:01:00.500Z', '2030-01-01T12:00:00.500Z');
      expect(await lastUse()).toEqual(at('2030-01-01T12:01:00.500Z'));
    });
  });
}
