import type { Anchor } from './anchor';
import { Clock } from './clock';
import { wholeSeconds } from './date-time';
import {
  ItemsAlreadyHome,
  ItemsNotOnJourney,
  ItemsStrandedByExpiredWindow,
  JourneyInProgress,
  TimelineClosed,
  TimelineWindowExpired,
} from './errors';
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

  pause(now: Date): Traveller {
    return this.withClock(this.clock.pause(now));
  }

  resume(now: Date): Traveller {
    return this.withClock(this.clock.resume(now));
  }

  /** Fast-forward (positive) or rewind (negative) by `ms`. */
  shiftBy(ms: number, now: Date): Traveller {
    return this.withClock(this.clock.shiftBy(ms, now));
  }

  /**
   * Refuses any action on the journey's timeline once its window has closed: the journey had to be
   * completed within it, and only the way home is left.
   */
  assertWindowOpen(currentTimeline: Timeline, now: Date): void {
    if (currentTimeline.id !== this.timelineId)
      throw new Error('assertWindowOpen needs the timeline the traveller is on');
    if (!currentTimeline.isPrimary && currentTimeline.windowHasPassed(now)) {
      throw new TimelineWindowExpired(currentTimeline.id, currentTimeline.deadline ?? now);
    }
  }

  /**
   * Moves to a moment and place on the timeline the traveller is on. Away from home that is still
   * part of the journey, so the journey's window must not have closed.
   */
  moveWithin(request: { time: Date; location: string; currentTimeline: Timeline; now: Date }): Traveller {
    this.assertWindowOpen(request.currentTimeline, request.now);
    const { now } = request;
    return new Traveller(
      this.accountId,
      this.clock.setTo(request.time, now),
      this.timelineId,
      request.location,
      this.journeyTravelId,
    );
  }

  travel(request: TravelRequest): TravelOutcome {
    const target = request.destination.timeline;
    return target.isPrimary ? this.comeHome(request) : this.goTo(target, request);
  }

  private goTo(target: Timeline, request: TravelRequest): TravelOutcome {
    const { now, destination, carrying } = request;
    if (!this.isHome && target.id !== this.timelineId) throw new JourneyInProgress(this.timelineId);
    const status = target.statusAt(now);
    if (status === 'expired') throw new TimelineWindowExpired(target.id, target.deadline ?? now);
    if (status === 'completed') throw new TimelineClosed(target.id);
    if (carrying.length > 0) throw new ItemsNotOnJourney(carrying.map((item) => item.id));

    const arrival =
      destination.kind === 'anchor'
        ? { time: destination.anchor.timestamp, location: destination.anchor.location }
        : { time: target.destinationTime ?? now, location: target.name };
    const journeyTravelId = this.journeyTravelId ?? request.travelId;
    return {
      traveller: this.arriveAt(target.id, arrival, journeyTravelId, now),
      timelines: status === 'active' ? [] : [target.withStatus('active')],
      items: [],
      arrivalTime: arrival.time,
    };
  }

  private comeHome(request: TravelRequest): TravelOutcome {
    const { now, destination, journeyTimeline } = request;
    const late = journeyTimeline !== null && journeyTimeline.windowHasPassed(now);
    const carried = this.itemsToCarryHome(request, late);
    const arrival =
      destination.kind === 'anchor'
        ? { time: destination.anchor.timestamp, location: destination.anchor.location }
        : { time: wholeSeconds(now), location: STARTING_LOCATION };
    return {
      traveller: this.arriveAt(PRIMARY_TIMELINE_ID, arrival, null, now),
      timelines: journeyTimeline ? [journeyTimeline.withStatus(late ? 'expired' : 'completed')] : [],
      items: carried.map((item) => carryHome(item, request.travelId)),
      arrivalTime: arrival.time,
    };
  }

  /** Items come home only from the timeline of the journey that found them, once, within its window. */
  private itemsToCarryHome({ carrying, journeyTimeline, now }: TravelRequest, late: boolean): readonly Item[] {
    if (carrying.length === 0) return carrying;
    const alreadyHome = carrying.filter((item) => item.carriedHomeBy !== null);
    if (alreadyHome.length > 0) throw new ItemsAlreadyHome(alreadyHome.map((item) => item.id));
    const strangers = carrying.filter((item) => item.timelineId !== journeyTimeline?.id);
    if (strangers.length > 0) throw new ItemsNotOnJourney(strangers.map((item) => item.id));
    if (late && journeyTimeline)
      throw new ItemsStrandedByExpiredWindow(journeyTimeline.id, journeyTimeline.deadline ?? now);
    return carrying;
  }

  private withClock(clock: Clock): Traveller {
    return new Traveller(this.accountId, clock, this.timelineId, this.location, this.journeyTravelId);
  }

  private arriveAt(
    timelineId: string,
    arrival: { time: Date; location: string },
    journeyTravelId: string | null,
    now: Date,
  ): Traveller {
    return new Traveller(
      this.accountId,
      this.clock.setTo(arrival.time, now),
      timelineId,
      arrival.location,
      journeyTravelId,
    );
  }
}
