// The build context as Docker sends it: the project folder less what .dockerignore excludes.
import { cpSync, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

interface Rule {
  readonly pattern: RegExp;
  readonly include: boolean;
}

function toRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i] ?? '';
    if (char === '*' && pattern[i + 1] === '*') {
      // `**/` also matches no folder at all, as in Docker's pattern matcher.
      source += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += pattern[i + 2] === '/' ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** Whether .dockerignore keeps a path (relative to the context, `/`-separated) out of the context. */
export function dockerIgnoreMatcher(text: string): (relativePath: string) => boolean {
  const rules: Rule[] = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const include = line.startsWith('!');
      const cleaned = path.posix.normalize((include ? line.slice(1) : line).trim()).replace(/^\/+|\/+$/g, '');
      return { pattern: toRegExp(cleaned), include };
    });
  return (relativePath) => {
    const parts = relativePath.split('/');
    // A rule that matches a folder excludes everything in it; the last matching rule decides.
    const candidates = parts.map((_, index) => parts.slice(0, index + 1).join('/'));
    let ignored = false;
    for (const rule of rules) {
      if (candidates.some((candidate) => rule.pattern.test(candidate))) ignored = !rule.include;
    }
    return ignored;
  };
}

export class BuildContext {
  private readonly ignored: (relativePath: string) => boolean;

  constructor(readonly root: string) {
    const ignoreFile = path.join(root, '.dockerignore');
    this.ignored = dockerIgnoreMatcher(existsSync(ignoreFile) ? readFileSync(ignoreFile, 'utf8') : '');
  }

  isDirectory(source: string): boolean {
    return statSync(this.resolve(source)).isDirectory();
  }

  /** Copies a file, or a folder's contents, as `COPY <source> <target>` from the context does. */
  copy(source: string, target: string): void {
    cpSync(this.resolve(source), target, {
      recursive: true,
      verbatimSymlinks: true,
      filter: (file) => !this.ignored(path.relative(this.root, file).split(path.sep).join('/')),
    });
  }

  private resolve(source: string): string {
    const relative = path.posix.normalize(source).replace(/^\/+|\/+$/g, '');
    const file = path.join(this.root, relative);
    if (relative.startsWith('..') || this.ignored(relative) || !existsSync(file)) {
      throw new Error(`COPY ${source}: not in the build context (missing, or excluded by .dockerignore)`);
    }
    return file;
  }
}
