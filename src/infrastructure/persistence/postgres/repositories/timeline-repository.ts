import { Timeline, type TimelineStatus } from '../../../../core/domain/timeline';
import type { TimelineCursor, TimelineRepository } from '../../../../core/ports/repositories';
import type { PrismaClient } from '../../../database/driver/generated/client';
import type { SqlRunner } from '../../../database/driver/sql-runner';
import { FIND_TIMELINE } from '../statements/timelines';
import type { Row } from '../kysely';
import type { Writes } from '../unit-of-work/writes';

const STATUSES: readonly TimelineStatus[] = ['open', 'active', 'completed', 'expired'];

interface StoredTimeline {
  readonly accountId: string;
  readonly id: string;
  readonly name: string;
  readonly destinationTime: Date | null;
  readonly createdAt: Date;
  readonly status: string;
  readonly windowMinutes: number | null;
}

export class PostgresTimelineRepository implements TimelineRepository {
  constructor(
    private readonly prisma: PrismaClient,
    /** For the lookup by id, the busiest read (every GET of a timeline). */
    private readonly sql: SqlRunner,
    private readonly writes: Writes,
  ) {}

  add(timeline: Timeline): Promise<void> {
    return this.writes.insert('timelines', ['account_id', 'id'], timelineRow(timeline));
  }

  save(timeline: Timeline): Promise<void> {
    const { account_id, id, ...fields } = timelineRow(timeline);
    return this.writes.update('timelines', { account_id, id }, fields);
  }

  async findForAccount(accountId: string, timelineId: string): Promise<Timeline | null> {
    const [row] = await FIND_TIMELINE.run(this.sql, { accountId, timelineId });
    return row ? toDomain(row) : null;
  }

  async listForAccount(accountId: string, page: { limit: number; after: TimelineCursor | null }): Promise<Timeline[]> {
    const after = page.after;
    const rows = await this.prisma.timeline.findMany({
      where: {
        accountId,
        ...(after && {
          OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }],
        }),
      },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: page.limit,
    });
    return rows.map(toDomain);
  }
}

function timelineRow(timeline: Timeline): Row<'timelines'> {
  return {
    account_id: timeline.accountId,
    id: timeline.id,
    name: timeline.name,
    destination_time: timeline.destinationTime,
    created_at: timeline.createdAt,
    status: timeline.status,
    window_minutes: timeline.windowMinutes,
  };
}

/** A timeline as read by FIND_TIMELINE (its stored status checked to be one the domain knows). */
export function toDomain(row: StoredTimeline): Timeline {
  const status = STATUSES.find((known) => known === row.status);
  if (!status) throw new Error(`Timeline ${row.id} has an unknown stored status '${row.status}'.`);
  return Timeline.restore({ ...row, status });
}
