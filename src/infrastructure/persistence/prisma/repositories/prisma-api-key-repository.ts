import type { ApiKey } from '../../../../core/domain/account';
import type { ApiKeyRepository } from '../../../../core/ports/repositories';
import type { Db } from '../db';

export class PrismaApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly db: Db) {}

  async add(key: ApiKey): Promise<void> {
    await this.db.apiKey.create({ data: key });
  }

  findByDigest(digest: string): Promise<ApiKey | null> {
    return this.db.apiKey.findUnique({ where: { digest } });
  }

  findForAccount(accountId: string, keyId: string): Promise<ApiKey | null> {
    return this.db.apiKey.findFirst({ where: { id: keyId, accountId } });
  }

  listForAccount(accountId: string): Promise<ApiKey[]> {
    return this.db.apiKey.findMany({ where: { accountId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  async save(key: ApiKey): Promise<void> {
    await this.db.apiKey.update({
      where: { id: key.id },
      data: { revokedAt: key.revokedAt, expiresAt: key.expiresAt, name: key.name },
    });
  }

  async recordUse(keyId: string, at: Date, unlessSince: Date): Promise<void> {
    // One statement, no read-modify-write: concurrent requests of one key write at most once.
    await this.db.apiKey.updateMany({
      where: { id: keyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lte: unlessSince } }] },
      data: { lastUsedAt: at },
    });
  }
}
