import { instantAt } from '../../domain/date-time';
import type { Item } from '../../domain/item';
import { recordEventIn } from '../events/record-event';
import { assertJourneyWindowOpen, exclusiveRecordingExpiry } from '../journey-window';
import type { IdGenerator } from '../../ports/id-generator';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';

export interface RegisterItemInput {
  readonly accountId: string;
  readonly description: string;
  /** Where the item was found; defaults to the traveller's current location. */
  readonly location?: string;
  /** When it was found; defaults to the account clock's current time. */
  readonly foundAt?: Date;
  /**
   * Family A finds items with a GET: asking again for the same item (description, place, time,
   * timeline) must answer the item already found instead of registering a copy.
   */
  readonly reuseSame?: boolean;
}

/** Registers an item found on the traveller's current timeline so that it may be carried home. */
export class RegisterItem {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly ids: IdGenerator,
    private readonly clock: WallClock,
  ) {}

  execute(input: RegisterItemInput): Promise<{ item: Item; registered: boolean }> {
    return exclusiveRecordingExpiry(this.transactions, this.clock, input.accountId, async (repos) => {
      const now = this.clock.now();
      const traveller = await repos.travellers.getForAccount(input.accountId);
      await assertJourneyWindowOpen(repos, traveller, now);
      const found = {
        timelineId: traveller.timelineId,
        description: input.description,
        location: input.location ?? traveller.location,
        foundAt: input.foundAt ? instantAt(input.foundAt.getTime()) : traveller.currentTime(now),
      };
      const same = input.reuseSame ? await repos.items.findSame(input.accountId, found) : null;
      if (same) return { item: same, registered: false };

      const item: Item = {
        ...found,
        accountId: input.accountId,
        id: this.ids.newId('itm'),
        registeredAt: now,
        carriedHomeBy: null,
      };
      await repos.items.add(item);
      await recordEventIn(
        repos,
        this.ids,
        { accountId: input.accountId, now },
        {
          timelineId: item.timelineId,
          kind: 'item_retrieved',
          time: item.foundAt,
          description: `Item retrieved: ${item.description}`,
          location: item.location,
          subjectId: item.id,
        },
      );
      return { item, registered: true };
    });
  }
}
