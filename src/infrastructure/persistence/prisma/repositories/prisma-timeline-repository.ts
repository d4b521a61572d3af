import { Timeline, type TimelineStatus } from '../../../../core/domain/timeline';
import type { TimelineCursor, TimelineRepository } from '../../../../core/ports/repositories';
import type { Db } from '../db';
import { prismaSql, type SqlRunner } from '../sql-runner';
import { selectList, TIMELINES } from '../tables';

const STATUSES: readonly TimelineStatus[] = ['open', 'active', 'completed', 'expired'];

type TimelineRow = {
  accountId: string;
  id: string;
  name: string;
  destinationTime: Date | null;
  createdAt: Date;
  status: string;
  windowMinutes: number | null;
};

/** The columns for raw SQL, named as TimelineRow names them. */
const TIMELINE_SELECT = selectList(TIMELINES);
const FIND_TIMELINE = `SELECT ${TIMELINE_SELECT} FROM timelines WHERE account_id = $1 AND id = $2`;

export class PrismaTimelineRepository implements TimelineRepository {
  constructor(
    private readonly db: Db,
    /** For the lookup by id, the busiest read (every GET of a timeline). */
    private readonly sql: SqlRunner = prismaSql(db),
  ) {}

  async add(timeline: Timeline): Promise<void> {
    await this.db.timeline.create({ data: timelineRow(timeline) });
  }

  async save(timeline: Timeline): Promise<void> {
    const { accountId, id, ...fields } = timelineRow(timeline);
    await this.db.timeline.update({ where: { accountId_id: { accountId, id } }, data: fields });
  }

  async findForAccount(accountId: string, timelineId: string): Promise<Timeline | null> {
    const [row] = await this.sql.query<TimelineRow>(FIND_TIMELINE, [accountId, timelineId]);
    return row ? toDomain(row) : null;
  }

  async listForAccount(accountId: string, page: { limit: number; after: TimelineCursor | null }): Promise<Timeline[]> {
    const after = page.after;
    const rows = await this.db.timeline.findMany({
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

export function timelineRow(timeline: Timeline): TimelineRow {
  return {
    accountId: timeline.accountId,
    id: timeline.id,
    name: timeline.name,
    destinationTime: timeline.destinationTime,
    createdAt: timeline.createdAt,
    status: timeline.status,
    windowMinutes: timeline.windowMinutes,
  };
}

function toDomain(row: TimelineRow): Timeline {
  const status = STATUSES.find((known) => known === row.status);
  if (!status) throw new Error(`Timeline ${row.id} has an unknown stored status '${row.status}'.`);
  return Timeline.restore({ ...row, status });
}
