import type { ApiKey } from '../../../../core/domain/account';
import type { ApiKeyRepository } from '../../../../core/ports/repositories';
import type { ApiKey as ApiKeyRow, PrismaClient } from '../../../database/driver/generated/client';
import type { Writes } from '../unit-of-work/writes';

export class PostgresApiKeyRepository implements ApiKeyRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writes: Writes,
  ) {}

  add(key: ApiKey): Promise<void> {
    return this.writes.insert('api_keys', ['id'], {
      id: key.id,
      account_id: key.accountId,
      prefix: key.prefix,
      digest: key.digest,
      name: key.name,
      created_at: key.createdAt,
      last_used_at: key.lastUsedAt,
      revoked_at: key.revokedAt,
      expires_at: key.expiresAt,
    });
  }

  async findByDigest(digest: string): Promise<ApiKey | null> {
    const row = await this.prisma.apiKey.findUnique({ where: { digest } });
    return row && apiKeyOf(row);
  }

  async findForAccount(accountId: string, keyId: string): Promise<ApiKey | null> {
    const row = await this.prisma.apiKey.findFirst({ where: { id: keyId, accountId } });
    return row && apiKeyOf(row);
  }

  async listForAccount(accountId: string): Promise<ApiKey[]> {
    const rows = await this.prisma.apiKey.findMany({
      where: { accountId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    return rows.map(apiKeyOf);
  }

  save(key: ApiKey): Promise<void> {
    return this.writes.update(
      'api_keys',
      { id: key.id },
      { revoked_at: key.revokedAt, expires_at: key.expiresAt, name: key.name },
    );
  }
}

function apiKeyOf(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    accountId: row.accountId,
    prefix: row.prefix,
    digest: row.digest,
    name: row.name,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
    expiresAt: row.expiresAt,
  };
}
