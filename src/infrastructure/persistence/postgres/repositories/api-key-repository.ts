import type { ApiKey } from '../../../../core/domain/account';
import {
  isAccessLevel,
  isResource,
  permissionsOf,
  type AccessLevel,
  type Permissions,
  type Resource,
} from '../../../../core/domain/api-key-permissions';
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
      permissions: key.permissions && JSON.stringify(key.permissions),
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
      {
        revoked_at: key.revokedAt,
        expires_at: key.expiresAt,
        name: key.name,
        permissions: key.permissions && JSON.stringify(key.permissions),
      },
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
    permissions: permissionsOfRow(row.permissions),
  };
}

/**
 * The stored levels: only the service writes them, from levels it checked; a resource
 * missing (one added after the key was made) is `none`, as it is for a key created without it.
 */
function permissionsOfRow(stored: unknown): Permissions | null {
  if (typeof stored !== 'object' || stored === null) return null;
  const given: Partial<Record<Resource, AccessLevel>> = {};
  for (const [resource, level] of Object.entries(stored)) {
    if (isResource(resource) && typeof level === 'string' && isAccessLevel(level)) given[resource] = level;
  }
  return permissionsOf(given);
}
