import type { Travel } from '../../domain/travel';
import type { Traveller } from '../../domain/traveller';
import type { IdGenerator } from '../../ports/id-generator';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import { arrivalEvent, recordEventIn } from '../events/record-event';
import { currentTimelineOf, exclusiveRecordingExpiry } from '../journey-window';

export interface TravelToMomentInput {
  readonly accountId: string;
  readonly destinationTime: Date;
  readonly location: string;
}

/** Moves the traveller to a moment and place on the timeline they are on (Families A and C). */
export class TravelToMoment {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly ids: IdGenerator,
    private readonly clock: WallClock,
  ) {}

  async execute(input: TravelToMomentInput): Promise<{ travel: Travel; traveller: Traveller }> {
    return exclusiveRecordingExpiry(this.transactions, this.clock, input.accountId, async (repos) => {
      const now = this.clock.now();
      const traveller = await repos.travellers.getForAccount(input.accountId);
      const timeline = await currentTimelineOf(repos, traveller);
      const moved = traveller.moveWithin({
        time: input.destinationTime,
        location: input.location,
        currentTimeline: timeline,
        now,
      });
      const travel: Travel = {
        accountId: input.accountId,
        id: this.ids.newId('trv'),
        destination: timeline.id,
        fromTimelineId: timeline.id,
        toTimelineId: timeline.id,
        departedAt: now,
        arrivalTime: input.destinationTime,
        itemsTransported: [],
      };
      await repos.travels.add(travel);
      await repos.travellers.save(moved);
      await recordEventIn(repos, this.ids, { accountId: input.accountId, now }, arrivalEvent(travel, input.location));
      return { travel, traveller: moved };
    });
  }
}
