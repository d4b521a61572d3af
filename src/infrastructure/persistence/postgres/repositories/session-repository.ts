import type { Session } from '../../../../core/domain/session';
import type { SessionRepository } from '../../../../core/ports/repositories';
import type { PrismaClient, Session as SessionRow } from '../../../database/driver/generated/client';
import type { Writes } from '../unit-of-work/writes';

export class PostgresSessionRepository implements SessionRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writes: Writes,
  ) {}

  add(session: Session): Promise<void> {
    return this.writes.insert('sessions', ['id'], {
      id: session.id,
      account_id: session.accountId,
      token_digest: session.tokenDigest,
      console_key_id: session.consoleKeyId,
      created_at: session.createdAt,
      last_seen_at: session.lastSeenAt,
      expires_at: session.expiresAt,
    });
  }

  async findByTokenDigest(tokenDigest: string): Promise<Session | null> {
    const row = await this.prisma.session.findUnique({ where: { tokenDigest } });
    return row && sessionOf(row);
  }

  save(session: Session): Promise<void> {
    return this.writes.update(
      'sessions',
      { id: session.id },
      { last_seen_at: session.lastSeenAt, console_key_id: session.consoleKeyId },
    );
  }

  /** A session already removed by a concurrent sign-out is not an error: the delete finds nothing. */
  remove(sessionId: string): Promise<void> {
    return this.writes.delete('sessions', { id: sessionId });
  }

  async listForAccount(accountId: string): Promise<Session[]> {
    const rows = await this.prisma.session.findMany({ where: { accountId } });
    return rows.map(sessionOf);
  }
}

function sessionOf(row: SessionRow): Session {
  return {
    id: row.id,
    accountId: row.accountId,
    tokenDigest: row.tokenDigest,
    consoleKeyId: row.consoleKeyId,
    createdAt: row.createdAt,
    lastSeenAt: row.lastSeenAt,
    expiresAt: row.expiresAt,
  };
}
