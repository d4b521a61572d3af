import type { Item } from '../../domain/item';
import type { IdGenerator } from '../../ports/id-generator';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';

export interface RegisterItemInput {
  readonly accountId: string;
  readonly description: string;
  /** Where the item was found; defaults to the traveller's current location. */
  readonly location?: string;
}

/** Registers an item found on the traveller's current timeline so that it may be carried home. */
export class RegisterItem {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly ids: IdGenerator,
    private readonly clock: WallClock,
  ) {}

  execute(input: RegisterItemInput): Promise<Item> {
    return this.transactions.exclusive(input.accountId, async (repos) => {
      const traveller = await repos.travellers.getForAccount(input.accountId);
      const item: Item = {
        accountId: input.accountId,
        id: this.ids.newId('itm'),
        description: input.description,
        location: input.location ?? traveller.location,
        timelineId: traveller.timelineId,
        registeredAt: this.clock.now(),
        carriedHomeBy: null,
      };
      await repos.items.add(item);
      return item;
    });
  }
}
