import type { Anchor } from '../../../../core/domain/anchor';
import type { AnchorRepository } from '../../../../core/ports/repositories';
import type { Anchor as AnchorRow, PrismaClient } from '../../../database/driver/generated/client';
import type { Row } from '../kysely';
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
    const row = await this.prisma.anchor.findUnique({ where: { accountId_id: { accountId, id: anchorId } } });
    return row && anchorOf(row);
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

function anchorOf(row: AnchorRow): Anchor {
  return {
    accountId: row.accountId,
    id: row.id,
    timestamp: row.timestamp,
    description: row.description,
    timelineId: row.timelineId,
    location: row.location,
    createdAt: row.createdAt,
  };
}
