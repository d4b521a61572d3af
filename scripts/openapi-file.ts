// The OpenAPI document committed at the root (openapi.json) and the API changelog whose entries
// name it by digest (CHANGELOG.md): what `npm run openapi:write` writes and what the tests hold
// them to (docs/openapi.md#the-committed-document).
import { createHash } from 'node:crypto';

export const DOCUMENT_FILE = 'openapi.json';
export const CHANGELOG_FILE = 'CHANGELOG.md';
export const WRITE_COMMAND = 'npm run openapi:write';

/** The file's text of a document: JSON indented by two spaces, with a final newline. */
export function documentText(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** How a changelog entry names a document: the SHA-256 of the file's bytes. */
export function digestOf(bytes: string | Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

export interface ChangelogEntry {
  readonly heading: string;
  /** The digest its `Document:` line names, if it has one. */
  readonly document: string | undefined;
}

/** The changelog's entries (its `## ` sections), newest first as written. */
export function changelogEntries(markdown: string): ChangelogEntry[] {
  return markdown
    .split(/^## /m)
    .slice(1)
    .map((section) => ({
      heading: section.slice(0, section.indexOf('\n')).trim(),
      document: /^Document: `(sha256:[0-9a-f]{64})`$/m.exec(section)?.[1],
    }));
}

/** What is missing for the changelog to name the committed document, or undefined. */
export function unnamedDocument(markdown: string, digest: string): string | undefined {
  const newest = changelogEntries(markdown)[0];
  if (newest?.document === digest) return undefined;
  return (
    `${CHANGELOG_FILE}'s newest entry names ${newest?.document ?? 'no document'}, not ${DOCUMENT_FILE}'s ` +
    `${digest}: add an entry saying what an integrator must know of the change, with the line ` +
    `Document: \`${digest}\``
  );
}
