import type { Anchor } from '../../domain/anchor';
import { instantAt } from '../../domain/date-time';
import { recordEventIn } from '../events/record-event';
import { assertJourneyWindowOpen, exclusiveRecordingExpiry } from '../journey-window';
import type { IdGenerator } from '../../ports/id-generator';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';

export interface CreateAnchorInput {
  readonly accountId: string;
  /** Defaults to the account clock's current time: "normally the current time before any modification". */
  readonly timestamp?: Date;
  readonly description: string;
}

/** Sets an anchor on the timeline the traveller is on. */
export class CreateAnchor {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly ids: IdGenerator,
    private readonly clock: WallClock,
  ) {}

  execute(input: CreateAnchorInput): Promise<Anchor> {
    return exclusiveRecordingExpiry(this.transactions, this.clock, input.accountId, async (repos) => {
      const now = this.clock.now();
      const traveller = await repos.travellers.getForAccount(input.accountId);
      await assertJourneyWindowOpen(repos, traveller, now);
      const anchor: Anchor = {
        accountId: input.accountId,
        id: this.ids.newId('anc'),
        timestamp: instantAt((input.timestamp ?? traveller.currentTime(now)).getTime()),
        description: input.description,
        timelineId: traveller.timelineId,
        location: traveller.location,
        createdAt: now,
      };
      await repos.anchors.add(anchor);
      await recordEventIn(
        repos,
        this.ids,
        { accountId: input.accountId, now },
        {
          timelineId: anchor.timelineId,
          kind: 'anchor_set',
          time: anchor.timestamp,
          description: `Anchor set: ${anchor.description}`,
          location: anchor.location,
          subjectId: anchor.id,
        },
      );
      return anchor;
    });
  }
}
