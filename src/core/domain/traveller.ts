import type { Anchor } from './anchor';
import { Clock } from './clock';
import { ItemsAlreadyHome, ItemsStrandedByExpiredWindow, JourneyInProgress, TimelineClosed, TimelineWindowExpired } from './errors';
import { carryHome, type Item } from './item';
import { PRIMARY_TIMELINE_ID, type Timeline } from './timeline';

export const STARTING_LOCATION = 'home';

/** Where a travel goes: a timeline (its destination time, or the present for `primary`) or an anchor. */
export type Destination =
  | { readonly kind: 'timeline'; readonly timeline: Timeline }
  | { readonly kind: 'anchor'; readonly anchor: Anchor; readonly timeline: Timeline };

export interface TravelRequest {
  readonly travelId: string;
  readonly destination: Destination;
  /** The timeline of the journey in progress, when the traveller is away from `primary`. */
  readonly journeyTimeline: Timeline | null;
  readonly carrying: readonly Item[];
  readonly now: Date;
}

export interface TravelOutcome {
  readonly traveller: Traveller;
  /** Timelines whose status the travel changed. */
  readonly timelines: readonly Timeline[];
  /** Items whose record the travel changed (carried home). */
  readonly items: readonly Item[];
  readonly arrivalTime: Date;
}

/**
 * The account's clock and position. A journey leaves `primary` for one timeline and ends on the
 * way home; it must end within that timeline's window.
 */
export class Traveller {
  private constructor(
    readonly accountId: string,
    readonly clock: Clock,
    readonly timelineId: string,
    readonly location: string,
    /** The travel that started the journey in progress; null while home on `primary`. */
    readonly journeyTravelId: string | null,
  ) {}

  static restore(state: {
    accountId: string;
    clock: Clock;
    timelineId: string;
    location: string;
    journeyTravelId: string | null;
  }): Traveller {
    return new Traveller(state.accountId, state.clock, state.timelineId, state.location, state.journeyTravelId);
  }

  static newcomer(accountId: string, now: Date): Traveller {
    return new Traveller(accountId, Clock.startingAt(now), PRIMARY_TIMELINE_ID, STARTING_LOCATION, null);
  }

  get isHome(): boolean {
    return this.timelineId === PRIMARY_TIMELINE_ID;
  }

  currentTime(now: Date): Date {
    return this.clock.currentTime(now);
  }

  travel(request: TravelRequest): TravelOutcome {
    const target = request.destination.timeline;
    return target.isPrimary ? this.comeHome(request) : this.goTo(target, request);
  }

  private goTo(target: Timeline, request: TravelRequest): TravelOutcome {
    const { now, destination } = request;
    if (!this.isHome && target.id !== this.timelineId) throw new JourneyInProgress(this.timelineId);
    const status = target.statusAt(now);
    if (status === 'expired') throw new TimelineWindowExpired(target.id, target.deadline ?? now);
    if (status === 'completed') throw new TimelineClosed(target.id);

    const arrivalTime = destination.kind === 'anchor' ? destination.anchor.timestamp : target.destinationTime ?? now;
    const journeyTravelId = this.journeyTravelId ?? request.travelId;
    return {
      traveller: this.arriveAt(target.id, arrivalTime, journeyTravelId, now),
      timelines: status === 'active' ? [] : [target.withStatus('active')],
      items: [],
      arrivalTime,
    };
  }

  private comeHome(request: TravelRequest): TravelOutcome {
    const { now, destination, journeyTimeline, carrying } = request;
    const alreadyHome = carrying.filter((item) => item.carriedHomeBy !== null);
    if (alreadyHome.length > 0) throw new ItemsAlreadyHome(alreadyHome.map((item) => item.id));

    const timelines: Timeline[] = [];
    if (journeyTimeline) {
      const late = journeyTimeline.windowHasPassed(now);
      if (late && carrying.length > 0) {
        throw new ItemsStrandedByExpiredWindow(journeyTimeline.id, journeyTimeline.deadline ?? now);
      }
      timelines.push(journeyTimeline.withStatus(late ? 'expired' : 'completed'));
    }
    const arrivalTime = destination.kind === 'anchor' ? destination.anchor.timestamp : now;
    return {
      traveller: this.arriveAt(PRIMARY_TIMELINE_ID, arrivalTime, null, now),
      timelines,
      items: carrying.map((item) => carryHome(item, request.travelId)),
      arrivalTime,
    };
  }

  private arriveAt(timelineId: string, time: Date, journeyTravelId: string | null, now: Date): Traveller {
    return new Traveller(this.accountId, this.clock.setTo(time, now), timelineId, this.location, journeyTravelId);
  }
}
