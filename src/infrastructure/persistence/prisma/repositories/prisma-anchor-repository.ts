import type { Anchor } from '../../../../core/domain/anchor';
import type { AnchorRepository } from '../../../../core/ports/repositories';
import type { Db } from '../db';

export class PrismaAnchorRepository implements AnchorRepository {
  constructor(private readonly db: Db) {}

  async add(anchor: Anchor): Promise<void> {
    await this.db.anchor.create({ data: anchor });
  }

  findForAccount(accountId: string, anchorId: string): Promise<Anchor | null> {
    return this.db.anchor.findUnique({ where: { accountId_id: { accountId, id: anchorId } } });
  }
}
