// What `npm run settings:write` writes from the table of settings (src/settings.ts): .env.example,
// and the table of docs/operations.md between its two markers. The tests hold both files to it.
import type { Reader } from '../src/config-values';
import { isServiceSetting, type SettingRow } from '../src/settings-table';
import { headingAnchors } from './markdown-anchors';

export const ENV_FILE = '.env.example';
export const DOC_FILE = 'docs/operations.md';
export const WRITE_COMMAND = 'npm run settings:write';
export const DOC_BEGIN = `<!-- Written by \`${WRITE_COMMAND}\` from src/settings.ts: edit there. -->`;
export const DOC_END = '<!-- End of what npm run settings:write writes. -->';

const ENV_WIDTH = 100;

/** The table as the files show it: each row with its reader as it stands when nothing is set. */
export interface SettingsView {
  readonly rows: readonly SettingRow[];
  readonly readers: ReadonlyMap<string, Reader<unknown>>;
}

/** What .env.example holds: every setting with its default, those that follow from others commented. */
export function envExample({ rows, readers }: SettingsView): string {
  const lines = [
    ...comment(
      'Every setting the service reads, with its default; each is optional and checked at start, which ' +
        'names any bad value. Empty is unset. A line left commented has a default that follows from other ' +
        'settings. `npm start` reads a copy of this file named .env.',
    ),
    '#',
    ...comment(
      `Written by \`${WRITE_COMMAND}\` from src/settings.ts, where each setting is described: edit there. ` +
        'The same table, with links, is in docs/operations.md#settings.',
    ),
  ];
  for (const [topic, topicRows] of byTopic(rows)) {
    lines.push('', `# --- ${topic} ---`);
    for (const row of topicRows) lines.push('', ...envEntry(row, readers));
  }
  return `${lines.join('\n')}\n`;
}

function envEntry(row: SettingRow, readers: SettingsView['readers']): string[] {
  if (!isServiceSetting(row)) {
    const unset = row.unset ? ` Unset: ${row.unset}.` : '';
    return [
      ...comment(`${row.about}${unset} Read by ${row.readBy.name}: ${row.readBy.url}`),
      `${row.variable}=${row.default}`,
    ];
  }
  const reader = readerFor(row.variable, readers);
  const fallback = row.rule ? ` Default: ${row.rule}.` : row.unset ? ` Unset: ${row.unset}.` : '';
  const described = comment(`${row.about} Takes ${reader.accepts}.${fallback}`);
  if (row.rule) return [...described, `# ${row.variable}=`];
  return [...described, `${row.variable}=${shownDefault(row.variable, reader)}`];
}

/** The Markdown that goes between the markers of docs/operations.md: a table per topic. */
export function operationsTables({ rows, readers }: SettingsView, headings: ReadonlyMap<string, string>): string {
  const parts: string[] = [];
  for (const [topic, topicRows] of byTopic(rows)) {
    parts.push(`### ${topic}`, '', '| variable | default | takes | what it does |', '|---|---|---|---|');
    for (const row of topicRows) parts.push(tableRow(row, readers, headings));
    parts.push('');
  }
  return parts.join('\n');
}

function tableRow(row: SettingRow, readers: SettingsView['readers'], headings: ReadonlyMap<string, string>): string {
  const about = linked(row.about, headings);
  if (!isServiceSetting(row)) {
    const fallback = row.default === '' ? unsetCell(row.unset) : `\`${row.default}\``;
    return cells(`\`${row.variable}\``, fallback, `as [${row.readBy.name}](${row.readBy.url}) reads it`, about);
  }
  const reader = readerFor(row.variable, readers);
  const value = shownDefault(row.variable, reader);
  const fallback = row.rule ?? (value === '' ? unsetCell(row.unset) : `\`${value}\``);
  return cells(`\`${row.variable}\``, fallback, reader.accepts, about);
}

/** docs/operations.md with the tables between its markers replaced. */
export function withTables(document: string, view: SettingsView): string {
  const begin = document.indexOf(DOC_BEGIN);
  const end = document.indexOf(DOC_END);
  if (begin === -1 || end < begin) throw new Error(`${DOC_FILE} lacks the markers ${DOC_BEGIN} and ${DOC_END}`);
  const tables = operationsTables(view, headingAnchors(document));
  return `${document.slice(0, begin + DOC_BEGIN.length)}\n\n${tables}${document.slice(end)}`;
}

/** `docs/<page>.md#<anchor>` and `deploy/<folder>` of a description as links from docs/. */
function linked(about: string, headings: ReadonlyMap<string, string>): string {
  return about
    .replace(/docs\/([\w-]+\.md)(?:#([\w-]+))?/g, (reference, page: string, anchor: string | undefined) => {
      if (page !== 'operations.md') return `[${page}](${page}${anchor ? `#${anchor}` : ''})`;
      const heading = anchor ? headings.get(anchor) : undefined;
      if (!heading) throw new Error(`src/settings.ts links ${reference}, which is no heading of ${DOC_FILE}`);
      return `[${heading}](#${anchor})`;
    })
    .replace(/\bdeploy\/([\w-]+)/g, (folder) => `[${folder}](../${folder}/)`);
}

function shownDefault(variable: string, reader: Reader<unknown>): string {
  const value = reader.read({}, variable, []);
  if (value === undefined) return '';
  return reader.shown ? reader.shown(value) : String(value);
}

function readerFor(variable: string, readers: SettingsView['readers']): Reader<unknown> {
  const reader = readers.get(variable);
  if (!reader) throw new Error(`${variable} has no reader`);
  return reader;
}

const unsetCell = (unset: string | undefined) => (unset ? `unset: ${unset}` : 'unset');

const cells = (...values: string[]) => `| ${values.map((value) => value.replaceAll('|', '\\|')).join(' | ')} |`;

function byTopic(rows: readonly SettingRow[]): Map<string, SettingRow[]> {
  const topics = new Map<string, SettingRow[]>();
  for (const row of rows) topics.set(row.topic, [...(topics.get(row.topic) ?? []), row]);
  return topics;
}

/** Text as `#` comment lines at most ENV_WIDTH long. */
function comment(text: string): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line.length + 1 + word.length > ENV_WIDTH && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}
