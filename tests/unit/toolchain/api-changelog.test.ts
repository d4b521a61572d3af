// CHANGELOG.md tells integrators what each change of the API means for them; each entry names the
// OpenAPI document it describes by the SHA-256 of openapi.json's bytes, so that a change of the
// committed document (which tests/http/openapi-document.test.ts holds to the served one) cannot
// land without an entry (docs/openapi.md#the-committed-document).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  CHANGELOG_FILE,
  changelogEntries,
  digestOf,
  DOCUMENT_FILE,
  unnamedDocument,
} from '../../../scripts/openapi-file';

const root = path.join(__dirname, '../../..');
const changelog = readFileSync(path.join(root, CHANGELOG_FILE), 'utf8');

describe(CHANGELOG_FILE, () => {
  it(`names ${DOCUMENT_FILE}'s digest in its newest entry`, () => {
    expect(unnamedDocument(changelog, digestOf(readFileSync(path.join(root, DOCUMENT_FILE))))).toBeUndefined();
  });

  it('names the document of each entry', () => {
    const entries = changelogEntries(changelog);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.filter((entry) => entry.document === undefined).map((entry) => entry.heading)).toEqual([]);
  });

  it('would refuse a document that only an older entry names, or that no entry names', () => {
    const [older, newer] = [digestOf('{"version":"1"}\n'), digestOf('{"version":"2"}\n')];
    const text = `# API changelog\n\n## Two\n\nDocument: \`${newer}\`\n\n## One\n\nDocument: \`${older}\`\n`;
    expect(changelogEntries(text)).toEqual([
      { heading: 'Two', document: newer },
      { heading: 'One', document: older },
    ]);
    expect(unnamedDocument(text, newer)).toBeUndefined();
    expect(unnamedDocument(text, older)).toBe(
      `${CHANGELOG_FILE}'s newest entry names ${newer}, not ${DOCUMENT_FILE}'s ${older}: add an entry saying ` +
        `what an integrator must know of the change, with the line Document: \`${older}\``,
    );
    expect(unnamedDocument('# API changelog\n', older)).toMatch(/newest entry names no document/);
  });

  it('reads a digest as the SHA-256 of the bytes', () => {
    expect(digestOf('')).toBe('sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});
