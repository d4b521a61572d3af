/** Formats an instant in the spec's form `YYYY-MM-DDThh:mm:ssZ`. */
export function formatDateTime(instant: Date): string {
  // toISOString always ends in `.sssZ` (for extended years too); formatted for every date of every
  // page, so no regular expression.
  return `${instant.toISOString().slice(0, -5)}Z`;
}
