// .env.example and the settings table of docs/operations.md are written from the table of settings
// (src/settings.ts) by `npm run settings:write`: each setting is described there, once.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readConfig } from '../../../src/config';
import { MALLOC_MMAP_THRESHOLD_DEFAULT, NODE_OPTIONS_DEFAULT, SETTINGS } from '../../../src/settings';
import { isServiceSetting } from '../../../src/settings-table';
import {
  DOC_BEGIN,
  DOC_END,
  DOC_FILE,
  ENV_FILE,
  envExample,
  withTables,
  WRITE_COMMAND,
} from '../../../scripts/settings-files';

const root = path.join(__dirname, '../../..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');
const view = { rows: SETTINGS.rows, readers: SETTINGS.readersUnset() };

/** Why a committed file is not what the table writes (its first line that differs), or undefined. */
function staleness(file: string, committed: string, written: string): string | undefined {
  if (committed === written) return undefined;
  const [ours, theirs] = [committed.split('\n'), written.split('\n')];
  const index = ours.findIndex((line, at) => line !== theirs[at]);
  const at = index === -1 ? ours.length : index;
  const shown = (line: string | undefined) => (line === undefined ? 'the end of the file' : `«${line.slice(0, 100)}»`);
  return (
    `${file} is not what src/settings.ts writes: line ${at + 1} is ${shown(ours[at])}, the table's ` +
    `${shown(theirs[at])}. Describe settings in src/settings.ts, then run ${WRITE_COMMAND}.`
  );
}

describe('the settings written from their table', () => {
  it(`${ENV_FILE} is what ${WRITE_COMMAND} writes`, () => {
    expect(staleness(ENV_FILE, read(ENV_FILE), envExample(view))).toBeUndefined();
  });

  it(`${DOC_FILE}'s table is what ${WRITE_COMMAND} writes`, () => {
    const committed = read(DOC_FILE);
    expect(staleness(DOC_FILE, committed, withTables(committed, view))).toBeUndefined();
  });

  it('says where a file differs and what rewrites it', () => {
    const written = envExample(view);
    expect(staleness(ENV_FILE, written.replace('\nPORT=3000\n', '\nPORT=8080\n'), written)).toMatch(
      new RegExp(`line \\d+ is «PORT=8080», the table's «PORT=3000»\\. .* then run ${WRITE_COMMAND}\\.$`),
    );
    const doc = read(DOC_FILE);
    const edited = doc.replace(/^\| `PORT` \| `3000` \|/m, '| `PORT` | `80` |');
    expect(edited).not.toBe(doc);
    expect(staleness(DOC_FILE, edited, withTables(edited, view))).toMatch(/is «\| `PORT` \| `80` \|/);
  });

  it('lists each variable once, and .env.example reads as no settings at all', () => {
    const variables = SETTINGS.rows.map((row) => row.variable);
    expect(variables.filter((name, at) => variables.indexOf(name) !== at)).toEqual([]);
    // Commented lines are the defaults that follow from others: none of them may read as a value.
    const lines = envExample(view).split('\n');
    const derived = SETTINGS.rows.filter((row) => isServiceSetting(row) && row.rule !== undefined);
    for (const row of derived) expect(lines).toContain(`# ${row.variable}=`);
    expect(readConfig(Object.fromEntries(lines.filter((line) => /^[A-Z]/.test(line)).map(split)))).toEqual(
      readConfig({}),
    );
  });

  it('refuses a link to a heading operations.md does not have', () => {
    const document = `# Operations\n\n## Settings\n\n${DOC_BEGIN}\n${DOC_END}\n`;
    expect(() => withTables(document, view)).toThrow(
      /links docs\/operations\.md#[a-z-]+, which is no heading of docs\/operations\.md/,
    );
    expect(() => withTables('# Operations\n', view)).toThrow(`${DOC_FILE} lacks the markers`);
  });

  it("gives Node's and glibc's variables the defaults npm start and the image give them", () => {
    const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(scripts['start']).toContain(`NODE_OPTIONS="\${NODE_OPTIONS:-${NODE_OPTIONS_DEFAULT}}"`);
    expect(scripts['start']).toContain(
      `MALLOC_MMAP_THRESHOLD_="\${MALLOC_MMAP_THRESHOLD_:-${MALLOC_MMAP_THRESHOLD_DEFAULT}}"`,
    );
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toContain(`NODE_OPTIONS="${NODE_OPTIONS_DEFAULT}"`);
    expect(dockerfile).toContain(`MALLOC_MMAP_THRESHOLD_=${MALLOC_MMAP_THRESHOLD_DEFAULT}`);
  });
});

function split(line: string): [string, string] {
  const at = line.indexOf('=');
  return [line.slice(0, at), line.slice(at + 1)];
}
