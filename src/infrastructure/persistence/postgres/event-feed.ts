import type {
  ChangePosition,
  ChangeSubscription,
  ChangesRead,
  EventFeed,
  WatchedPlace,
} from '../../../core/ports/event-feed';
import type { EventChangeSignals } from '../../event-changes/event-change-signals';
import { toDomain } from './repositories/event-repository';
import type { SqlRunner } from '../../database/driver/sql-runner';
import { EVENT_CHANGES } from './statements/event-changes';
import { TRAVELLER_VERSION } from './statements/travellers';
import { textDigest } from './text-digest';

/**
 * The changes of events as the account's units of work wrote them: each event carries the
 * account's version that last wrote it (gated-statement.ts, STAMPED), and the database announces each
 * change (event-change-signals.ts).
 */
export class PostgresEventFeed implements EventFeed {
  /** Reads in flight by their inputs: streams woken together that watch alike share one read. */
  private readonly reading = new Map<string, Promise<ChangesRead>>();

  constructor(
    private readonly sql: SqlRunner,
    private readonly signals: EventChangeSignals,
  ) {}

  async versionOf(accountId: string): Promise<string | null> {
    const [traveller] = await TRAVELLER_VERSION.run(this.sql, { accountId });
    return traveller?.version ?? null;
  }

  /**
   * One change of an account wakes all its streams at once; those that watch the same place, range
   * and timeline from the same position (a page's many viewers, caught up) share one read, if it
   * started after the account's last signal: a read started before it may not see the change a
   * stream was woken for.
   */
  changesAfter(watched: WatchedPlace, after: ChangePosition, limit: number): Promise<ChangesRead> {
    const { accountId, timelineId, range } = watched;
    const generation = this.signals.generationOf(accountId);
    const where = [timelineId, watched.place, +range.start, +range.end, after.version, after.eventId, limit];
    const key = [accountId, generation, ...where];
    const sharedKey = JSON.stringify(key);
    const shared = this.reading.get(sharedKey);
    if (shared) return shared;
    const read = this.read(watched, after, limit).finally(() => this.reading.delete(sharedKey));
    this.reading.set(sharedKey, read);
    return read;
  }

  private async read(watched: WatchedPlace, after: ChangePosition, limit: number): Promise<ChangesRead> {
    const { accountId, timelineId, range } = watched;
    // Unprepared, so planned for its position each time: a generic plan cannot know the position
    // is recent, and reads the place's whole history by its search indexes instead
    // (event-changes-plan.server.test.ts). A stream reads when woken, not per request.
    const input = {
      accountId,
      timelineId,
      placeKey: textDigest(watched.place),
      start: range.start,
      end: range.end,
      afterVersion: after.version,
      afterId: after.eventId,
      limit,
    };
    // First: the account's units of work commit in the order of their versions (each holds the
    // traveller's row until it commits), so the changes read next include every one up to it.
    const through = await this.versionOf(accountId);
    const rows = await EVENT_CHANGES.run(this.sql, input, { prepare: false });
    const changes = rows.map(({ version, origin, ...row }) => ({
      event: toDomain(row, accountId, timelineId),
      position: { version, eventId: row.id },
      origin,
    }));
    return { changes, through };
  }

  subscribe(accountId: string): ChangeSubscription {
    return this.signals.subscribe(accountId);
  }
}
