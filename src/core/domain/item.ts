/** Something found on a timeline and registered so that it may be carried home. */
export interface Item {
  readonly accountId: string;
  readonly id: string;
  readonly description: string;
  readonly location: string;
  /** The timeline the traveller was on when registering the item. */
  readonly timelineId: string;
  /** Wall-clock moment of registration. */
  readonly registeredAt: Date;
  /** The traveller's time at which the item was found (the account clock, or the time given). */
  readonly foundAt: Date;
  /** The travel that carried the item home, or null while it has not been carried home. */
  readonly carriedHomeBy: string | null;
}

export function carryHome(item: Item, travelId: string): Item {
  return { ...item, carriedHomeBy: travelId };
}
