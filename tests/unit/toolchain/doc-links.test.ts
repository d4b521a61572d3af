// Every relative link of the docs resolves: to a file of the repository, and to a heading of it
// when it names one. Links out of the repository (http:, mailto:) are not followed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { headingAnchors, withoutCodeBlocks } from '../../../scripts/markdown-anchors';

const root = path.join(__dirname, '../../..');
const docs = [
  'README.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The links of `file` that lead nowhere, as `file: target`. */
function brokenLinks(file: string, read: (file: string) => string | undefined): string[] {
  const text = read(file) ?? '';
  const targets = [...withoutCodeBlocks(text).matchAll(/\]\(([^)\s]+)\)/g)].map(([, target = '']) => target);
  return targets
    .filter((target) => !/^[a-z]+:/.test(target) && target !== '...') // `(...)`: an example elided in prose
    .filter((target) => {
      const [page = '', anchor] = target.split('#');
      const linked = page === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), page));
      const linkedText = read(linked);
      if (linkedText === undefined) return true;
      return anchor !== undefined && linked.endsWith('.md') && !headingAnchors(linkedText).has(anchor);
    })
    .map((target) => `${file}: ${target}`);
}

/** A file's text, '' for a folder, undefined when there is none. */
function fromDisk(file: string): string | undefined {
  const full = path.join(root, file);
  if (!existsSync(full)) return undefined;
  return file.endsWith('.md') ? readFileSync(full, 'utf8') : '';
}

describe('links of the docs', () => {
  it('lead to a file of the repository, and to one of its headings when they name one', () => {
    expect(docs.flatMap((file) => brokenLinks(file, fromDisk))).toEqual([]);
  });

  it('would catch a missing file, a missing heading and a heading named as GitHub does not', () => {
    const files: Record<string, string> = {
      'docs/a.md': "# A\n\n## The embedded database's data folder\n\n```\n# not a heading\n```\n",
      'docs/b.md': [
        '[ok](a.md#the-embedded-databases-data-folder) [ok](#b) [ok](../README.md) [out](https://x.org/#y)',
        '[gone](c.md) [no heading](a.md#not-a-heading) [case](a.md#The-embedded) [self](#nothing)',
        '# B',
      ].join('\n'),
      'README.md': '',
    };
    expect(brokenLinks('docs/b.md', (file) => files[file])).toEqual([
      'docs/b.md: c.md',
      'docs/b.md: a.md#not-a-heading',
      'docs/b.md: a.md#The-embedded',
      'docs/b.md: #nothing',
    ]);
  });
});
