import type { ApiKey } from '../../../../core/domain/account';
import type { ApiKeyRepository } from '../../../../core/ports/repositories';
import type { Db } from '../db';

export class PrismaApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly db: Db) {}

  async add(key: ApiKey): Promise<void> {
    await this.db.apiKey.create({ data: key });
  }

  findByDigest(digest: string): Promise<ApiKey | null> {
    return this.db.apiKey.findUnique({
      where: { digest },
      select: { id: true, accountId: true, prefix: true, digest: true, createdAt: true, revokedAt: true },
    });
  }
}
