// docs/dependencies.md says why each package is here: one row per package of package.json, in the
// table of the section it is in (`dependencies` or `devDependencies`), and none for a package that
// is gone. Names only; what a row says is read in review.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '../../..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');

type Section = 'dependencies' | 'devDependencies';

/** The first cell of each row of the table under the heading that names `section` in backticks. */
function firstCells(markdown: string, section: Section): string[] {
  const part = markdown.split(/^## /m).find((text) => text.slice(0, text.indexOf('\n')).includes(`(\`${section}\`)`));
  if (part === undefined) throw new Error(`docs/dependencies.md has no section naming (\`${section}\`)`);
  return part
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| package |'))
    .map((line) => line.split(' | ')[0]?.slice(2) ?? '');
}

/** The package names a first cell gives, each in backticks: `express` 5, `@types/*`. */
const namesIn = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '');

const covers = (name: string, pkg: string): boolean =>
  name.endsWith('/*') ? pkg.startsWith(name.slice(0, -1)) : name === pkg;

/** Packages without a row, and row names that match no package. */
function disagreements(packages: readonly string[], names: readonly string[]) {
  return {
    withoutRow: packages.filter((pkg) => !names.some((name) => covers(name, pkg))),
    notInPackageJson: names.filter((name) => !packages.some((pkg) => covers(name, pkg))),
  };
}

describe('docs/dependencies.md', () => {
  const packageJson = JSON.parse(read('package.json')) as Record<Section, Record<string, string>>;
  const doc = read('docs/dependencies.md');

  it.each<Section>(['dependencies', 'devDependencies'])('has a row for each of %s and for nothing else', (section) => {
    const names = firstCells(doc, section).flatMap(namesIn);
    expect(disagreements(Object.keys(packageJson[section]), names)).toEqual({ withoutRow: [], notInPackageJson: [] });
  });

  it.each<Section>(['dependencies', 'devDependencies'])('names a package in backticks in each row of %s', (section) => {
    const cells = firstCells(doc, section);
    expect(cells.length).toBeGreaterThan(0);
    expect(cells.filter((cell) => namesIn(cell).length === 0)).toEqual([]);
  });

  it('would catch a package without a row, a row for a package gone, and a wildcard matching nothing', () => {
    const table = [
      '## Run (`dependencies`)',
      '| package | why |',
      '|---|---|',
      '| `express` 5, `gone` | x |',
      '| `@types/*` | y |',
    ].join('\n');
    const names = firstCells(table, 'dependencies').flatMap(namesIn);
    expect(names).toEqual(['express', 'gone', '@types/*']);
    expect(disagreements(['express', 'pino', '@types/node'], names)).toEqual({
      withoutRow: ['pino'],
      notInPackageJson: ['gone'],
    });
    expect(disagreements(['express', 'gone'], names).notInPackageJson).toEqual(['@types/*']);
    expect(() => firstCells(table, 'devDependencies')).toThrow('no section');
  });
});
