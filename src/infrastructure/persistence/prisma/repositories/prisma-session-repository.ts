import type { Session } from '../../../../core/domain/session';
import type { SessionRepository } from '../../../../core/ports/repositories';
import type { Db } from '../db';

export class PrismaSessionRepository implements SessionRepository {
  constructor(private readonly db: Db) {}

  async add(session: Session): Promise<void> {
    await this.db.session.create({ data: session });
  }

  findByTokenDigest(tokenDigest: string): Promise<Session | null> {
    return this.db.session.findUnique({ where: { tokenDigest } });
  }

  async save(session: Session): Promise<void> {
    await this.db.session.update({
      where: { id: session.id },
      data: { lastSeenAt: session.lastSeenAt, consoleKeyId: session.consoleKeyId },
    });
  }

  async remove(sessionId: string): Promise<void> {
    // deleteMany: a session already removed by a concurrent sign-out is not an error.
    await this.db.session.deleteMany({ where: { id: sessionId } });
  }

  listEndedForAccount(accountId: string, idleSince: Date, now: Date): Promise<Session[]> {
    return this.db.session.findMany({
      where: { accountId, OR: [{ expiresAt: { lte: now } }, { lastSeenAt: { lte: idleSince } }] },
    });
  }
}
