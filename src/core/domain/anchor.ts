/** A fixed point in time, on the timeline where it was set, that the traveller can return to. */
export interface Anchor {
  readonly accountId: string;
  readonly id: string;
  readonly timestamp: Date;
  readonly description: string;
  readonly timelineId: string;
  /** Where the traveller was when setting it; travelling back to the anchor returns there. */
  readonly location: string;
  readonly createdAt: Date;
}
