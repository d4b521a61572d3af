import { TimelineNotFound, UnknownItems } from '../../domain/errors';
import { assessStability, type ProposedChange, type StabilityVerdict } from '../../domain/paradox';
import type { TransactionBoundary } from '../../ports/transaction-boundary';

export interface CheckParadoxInput {
  readonly accountId: string;
  readonly timelineId: string;
  readonly proposedChanges: readonly ProposedChange[];
}

/** Decides whether a timeline with the proposed changes is stable. Reads only; stores nothing. */
export class CheckParadox {
  constructor(private readonly transactions: TransactionBoundary) {}

  async execute(input: CheckParadoxInput): Promise<StabilityVerdict> {
    const itemIds = [
      ...new Set(input.proposedChanges.flatMap((change) => (change.kind === 'item' ? [change.itemId] : []))),
    ];
    const { timeline, items } = await this.transactions.read(async (repos) => ({
      timeline: await repos.timelines.findForAccount(input.accountId, input.timelineId),
      items: await repos.items.findManyForAccount(input.accountId, itemIds),
    }));
    if (!timeline) throw new TimelineNotFound(input.timelineId);
    // Rule 3 of the spec: a check cannot be meaningful for an item that does not exist yet.
    const known = new Set(items.map((item) => item.id));
    const unknown = itemIds.filter((id) => !known.has(id));
    if (unknown.length > 0) throw new UnknownItems(unknown);
    return assessStability(input.proposedChanges);
  }
}
