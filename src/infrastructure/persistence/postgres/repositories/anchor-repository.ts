import type { Anchor } from '../../../../core/domain/anchor';
import type { AnchorRepository } from '../../../../core/ports/repositories';
import type { PrismaClient } from '../../prisma/generated/client';
import type { Row } from '../unit-of-work/write-set';
import type { Writes } from '../unit-of-work/writes';

export class PostgresAnchorRepository implements AnchorRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writes: Writes,
  ) {}

  add(anchor: Anchor): Promise<void> {
    return this.writes.insert('anchors', ['account_id', 'id'], anchorRow(anchor));
  }

  async findForAccount(accountId: string, anchorId: string): Promise<Anchor | null> {
    return this.prisma.anchor.findUnique({ where: { accountId_id: { accountId, id: anchorId } } });
  }
}

function anchorRow(anchor: Anchor): Row<'anchors'> {
  return {
    account_id: anchor.accountId,
    id: anchor.id,
    timestamp: anchor.timestamp,
    description: anchor.description,
    timeline_id: anchor.timelineId,
    location: anchor.location,
    created_at: anchor.createdAt,
  };
}
