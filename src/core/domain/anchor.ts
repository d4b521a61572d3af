/** A fixed point in time, on the timeline where it was set, that the traveller can return to. */
export interface Anchor {
  readonly accountId: string;
  readonly id: string;
  readonly timestamp: Date;
  readonly description: string;
  readonly timelineId: string;
  readonly createdAt: Date;
}
