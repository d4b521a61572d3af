/** One completed move of the traveller, kept as history. */
export interface Travel {
  readonly accountId: string;
  readonly id: string;
  /** The destination as the client named it: a timeline id or an anchor id. */
  readonly destination: string;
  readonly fromTimelineId: string;
  readonly toTimelineId: string;
  /** Wall-clock moment of departure. */
  readonly departedAt: Date;
  /** Clock reading on arrival. */
  readonly arrivalTime: Date;
  readonly itemsTransported: readonly string[];
}
