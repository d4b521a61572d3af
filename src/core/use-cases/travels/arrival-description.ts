/** How an arrival reads in the event record, whichever family moved the traveller. */
export function arrivalDescription(location: string): string {
  return `Traveller arrives at ${location}`;
}
