// A newcomer finds the two commands at once, with what they need in a few lines around them; the
// rest (every setting, how the tests run) has its own page.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const readme = readFileSync(path.join(__dirname, '../../../README.md'), 'utf8').split('\n');

/** The lines of the section headed `heading`, the heading included, up to the next `## `. */
function section(lines: readonly string[], heading: string): string[] {
  const start = lines.indexOf(heading);
  if (start === -1) return [];
  const length = lines.slice(start + 1).findIndex((line) => line.startsWith('## '));
  const end = length === -1 ? lines.length : start + 1 + length;
  return lines.slice(start, end).join('\n').trimEnd().split('\n');
}

describe('README', () => {
  it('gives the two commands within its first 30 lines', () => {
    for (const command of ['npm ci && npm start', 'npm ci && npm test'])
      expect(readme.findIndex((line) => line.startsWith(command))).toBeLessThan(30);
  });

  it('says what they need in a section of at most 25 lines', () => {
    const lines = section(readme, '## Two commands');
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.length).toBeLessThanOrEqual(25);
  });

  it('measures a section to the next heading, without its trailing blank lines', () => {
    expect(section(['# T', '## A', 'a', '', '## B', 'b', ''], '## A')).toEqual(['## A', 'a']);
    expect(section(['## B', 'b', '', ''], '## B')).toEqual(['## B', 'b']);
    expect(section(['## B'], '## C')).toEqual([]);
  });
});
