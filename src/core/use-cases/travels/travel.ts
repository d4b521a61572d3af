import { AnchorNotFound, DestinationNotFound, UnknownItems } from '../../domain/errors';
import type { Item } from '../../domain/item';
import type { Timeline } from '../../domain/timeline';
import type { Travel as TravelRecord } from '../../domain/travel';
import type { Destination, Traveller } from '../../domain/traveller';
import type { IdGenerator } from '../../ports/id-generator';
import type { Repositories } from '../../ports/repositories';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import { arrivalEvent, recordEventIn } from '../events/record-event';
import { exclusiveRecordingExpiry } from '../journey-window';

export interface TravelInput {
  readonly accountId: string;
  /** A timeline id (`primary` for the present of the main timeline) or an anchor id. */
  readonly destination: string;
  /** `anchor`: only an anchor will do (returning to an anchor); otherwise timelines too. */
  readonly only?: 'anchor';
  readonly itemsTransported?: readonly string[];
}

export interface TravelResult {
  readonly travel: TravelRecord;
  readonly traveller: Traveller;
}

/** Moves the traveller to a timeline or an anchor, carrying registered items. */
export class Travel {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly ids: IdGenerator,
    private readonly clock: WallClock,
  ) {}

  async execute(input: TravelInput): Promise<TravelResult> {
    return exclusiveRecordingExpiry(this.transactions, this.clock, input.accountId, (repos) =>
      this.travel(repos, input),
    );
  }

  private async travel(repos: Repositories, input: TravelInput): Promise<TravelResult> {
    const now = this.clock.now();
    const traveller = await repos.travellers.getForAccount(input.accountId);
    const destination = await this.resolveDestination(repos, input);
    const itemIds = [...new Set(input.itemsTransported ?? [])];
    const carrying = await this.loadItems(repos, input.accountId, itemIds);
    const journeyTimeline = traveller.isHome
      ? null
      : await repos.timelines.findForAccount(input.accountId, traveller.timelineId);

    const travelId = this.ids.newId('trv');
    const outcome = traveller.travel({ travelId, destination, journeyTimeline, carrying, now });

    const travel: TravelRecord = {
      accountId: input.accountId,
      id: travelId,
      destination: input.destination,
      fromTimelineId: traveller.timelineId,
      toTimelineId: outcome.traveller.timelineId,
      departedAt: now,
      arrivalTime: outcome.arrivalTime,
      itemsTransported: itemIds,
    };
    await repos.travels.add(travel);
    await repos.travellers.save(outcome.traveller);
    for (const timeline of outcome.timelines) await repos.timelines.save(timeline);
    for (const item of outcome.items) await repos.items.save(item);
    await recordEventIn(
      repos,
      this.ids,
      { accountId: input.accountId, now },
      arrivalEvent(travel, outcome.traveller.location),
    );
    return { travel, traveller: outcome.traveller };
  }

  private async resolveDestination(
    repos: Repositories,
    { accountId, destination, only }: TravelInput,
  ): Promise<Destination> {
    const timeline = only === 'anchor' ? null : await repos.timelines.findForAccount(accountId, destination);
    if (timeline) return { kind: 'timeline', timeline };
    const anchor = await repos.anchors.findForAccount(accountId, destination);
    const anchorTimeline: Timeline | null = anchor
      ? await repos.timelines.findForAccount(accountId, anchor.timelineId)
      : null;
    if (!anchor || !anchorTimeline)
      throw only === 'anchor' ? new AnchorNotFound(destination) : new DestinationNotFound(destination);
    return { kind: 'anchor', anchor, timeline: anchorTimeline };
  }

  private async loadItems(repos: Repositories, accountId: string, itemIds: readonly string[]): Promise<Item[]> {
    const items = await repos.items.findManyForAccount(accountId, itemIds);
    const found = new Set(items.map((item) => item.id));
    const unknown = itemIds.filter((id) => !found.has(id));
    if (unknown.length > 0) throw new UnknownItems(unknown);
    return items;
  }
}
