/** Names and places compare ignoring case and surrounding or repeated white space. */
export function textKey(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}
