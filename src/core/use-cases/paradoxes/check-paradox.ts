import { TimelineNotFound, UnknownEvent, UnknownItems } from '../../domain/errors';
import {
  assessStability,
  CHECK_BOUNDS,
  NAMED_BOUNDS,
  type ProposedChange,
  proposedNames,
  type StabilityVerdict,
} from '../../domain/paradox';
import type { TimeRange } from '../../domain/time-range';
import type { TimelineEvent } from '../../domain/timeline-event';
import type { ReadRepositories } from '../../ports/repositories';
import type { TransactionBoundary } from '../../ports/transaction-boundary';

interface CheckOfTimeline {
  readonly accountId: string;
  readonly timelineId: string;
  /** Focus on one event, by id or name: it must exist on the timeline. */
  readonly significantEvent?: string;
}

/**
 * A check weighs proposed changes against the whole timeline, or monitors a range with none: no
 * operation asks for both, so the names proposed are read on the whole timeline only.
 */
export type CheckParadoxInput = CheckOfTimeline &
  (
    | { readonly proposedChanges?: readonly ProposedChange[]; readonly range?: never }
    | {
        /** Check only the events whose time (or original time) falls in this range. */
        readonly range: TimeRange;
        readonly proposedChanges?: never;
      }
  );

export interface ParadoxReport extends StabilityVerdict {
  /** The significant event checked, when one was asked for. */
  readonly significantEvent: TimelineEvent | null;
}

/**
 * Every family's paradox check: paradox-checks and check-paradox (a timeline and proposed changes),
 * monitor-paradox (a time range, through MonitorParadox), check-timeline (one significant event).
 * One use case and one domain function, so the same timeline gets the same verdict whichever family asks.
 */
export class CheckParadox {
  constructor(private readonly transactions: TransactionBoundary) {}

  execute(input: CheckParadoxInput): Promise<ParadoxReport> {
    return this.transactions.snapshot(input.accountId, (repos) => this.checkIn(repos, input));
  }

  /** The same check on repositories already open, for a use case that reads more in the same snapshot. */
  async checkIn(repos: ReadRepositories, input: CheckParadoxInput): Promise<ParadoxReport> {
    const changes = input.proposedChanges ?? [];
    const timeline = await repos.timelines.findForAccount(input.accountId, input.timelineId);
    if (!timeline) throw new TimelineNotFound(input.timelineId);
    await this.requireItems(repos, input.accountId, changes);

    const significant = input.significantEvent === undefined ? null : await this.findSignificant(repos, input);
    const names = proposedNames(changes);
    // The significant event needs no place of its own in the verdict: if it is displaced, it is
    // among the timeline's displaced events, so check-timeline never calls stable a timeline that
    // the other checks call unstable.
    const [named, displaced] = await Promise.all([
      names.length ? repos.events.tallyNamed(input.accountId, timeline.id, names, NAMED_BOUNDS) : [],
      repos.events.tallyDisplaced(input.accountId, timeline.id, input.range, CHECK_BOUNDS),
    ]);
    return { ...assessStability({ changes, named, displaced }), significantEvent: significant };
  }

  /** Spec rule 3: a check cannot be meaningful for an item that does not exist yet. */
  private async requireItems(
    repos: ReadRepositories,
    accountId: string,
    changes: readonly ProposedChange[],
  ): Promise<void> {
    const itemIds = [...new Set(changes.flatMap((change) => (change.kind === 'item' ? [change.itemId] : [])))];
    if (itemIds.length === 0) return;
    const known = new Set((await repos.items.findManyForAccount(accountId, itemIds)).map((item) => item.id));
    const unknown = itemIds.filter((id) => !known.has(id));
    if (unknown.length > 0) throw new UnknownItems(unknown);
  }

  private async findSignificant(repos: ReadRepositories, input: CheckParadoxInput): Promise<TimelineEvent> {
    const wanted = input.significantEvent ?? '';
    const byId = await repos.events.findForAccount(input.accountId, wanted);
    if (byId && byId.timelineId === input.timelineId) return byId;
    const [byName] = await repos.events.tallyNamed(input.accountId, input.timelineId, [{ name: wanted, times: [] }], {
      listed: 1,
      counted: 1,
    });
    const first = byName?.events.first[0];
    if (!first) throw new UnknownEvent(input.timelineId, wanted);
    return first;
  }
}
