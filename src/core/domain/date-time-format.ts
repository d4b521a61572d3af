/** Formats an instant in the spec's form `YYYY-MM-DDThh:mm:ssZ`. */
export function formatDateTime(instant: Date): string {
  return instant.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
