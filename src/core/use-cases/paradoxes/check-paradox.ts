import { TimelineNotFound, UnknownEvent, UnknownItems } from '../../domain/errors';
import {
  assessStability,
  CHECK_BOUNDS,
  NAMED_BOUNDS,
  type ProposedChange,
  proposedNames,
  type RecordedUnderName,
  type StabilityVerdict,
} from '../../domain/paradox';
import { textKey } from '../../domain/text-key';
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

  /**
   * What the verdict rests on, the timeline's events, is one read (paradoxFacts): it agrees with
   * itself. Timelines and items are never removed, so that they exist holds whenever it is read. A
   * significant event read on its own must agree with the verdict (its time, whether it is
   * displaced): that check alone reads in a snapshot.
   */
  execute(input: CheckParadoxInput): Promise<ParadoxReport> {
    if (input.significantEvent === undefined) return this.transactions.read((repos) => this.checkIn(repos, input));
    return this.transactions.snapshot(input.accountId, (repos) => this.checkIn(repos, input));
  }

  /** The same check on repositories already open, for a use case that reads more in the same snapshot. */
  async checkIn(repos: ReadRepositories, input: CheckParadoxInput): Promise<ParadoxReport> {
    const { accountId, timelineId, significantEvent: wanted } = input;
    const changes = input.proposedChanges ?? [];
    const names = proposedNames(changes);
    // A significant event named so is the first of its name: read with the proposed names.
    const asked =
      wanted === undefined || names.some((name) => sameName(name.name, wanted))
        ? names
        : [...names, { name: wanted, times: [] }];
    const itemIds = [...new Set(changes.flatMap((change) => (change.kind === 'item' ? [change.itemId] : [])))];
    const [timeline, items, facts, byId] = await Promise.all([
      repos.timelines.findForAccount(accountId, timelineId),
      itemIds.length === 0 ? [] : repos.items.findManyForAccount(accountId, itemIds),
      repos.events.paradoxFacts(accountId, timelineId, {
        names: asked,
        namedBounds: NAMED_BOUNDS,
        range: input.range,
        displacedBounds: CHECK_BOUNDS,
      }),
      wanted === undefined ? null : repos.events.findForAccount(accountId, wanted),
    ]);
    if (!timeline) throw new TimelineNotFound(timelineId);
    // Spec rule 3: a check cannot be meaningful for an item that does not exist yet.
    const known = new Set(items.map((item) => item.id));
    const unknown = itemIds.filter((id) => !known.has(id));
    if (unknown.length > 0) throw new UnknownItems(unknown);
    const significant = wanted === undefined ? null : significantOf(input, wanted, byId, facts.named);
    // The significant event needs no place of its own in the verdict: if it is displaced, it is
    // among the timeline's displaced events, so check-timeline never calls stable a timeline that
    // the other checks call unstable.
    const verdict = assessStability({ changes, named: facts.named, displaced: facts.displaced });
    return { ...verdict, significantEvent: significant };
  }
}

/** The significant event: the timeline's event of that id, or else the first of that name. */
function significantOf(
  input: CheckParadoxInput,
  wanted: string,
  byId: TimelineEvent | null,
  named: readonly RecordedUnderName[],
): TimelineEvent {
  if (byId && byId.timelineId === input.timelineId) return byId;
  const first = named.find((recorded) => sameName(recorded.name, wanted))?.events.first[0];
  if (!first) throw new UnknownEvent(input.timelineId, wanted);
  return first;
}

function sameName(a: string, b: string): boolean {
  return textKey(a) === textKey(b);
}
