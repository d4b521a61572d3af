// The Prisma client must come out the same whatever files are present when it is generated: the
// Dockerfile runs `npm ci` (and so `prisma generate`) before it copies tsconfig.json.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, readdir, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.join(__dirname, '../../..');

async function sourceFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe('prisma generate without tsconfig.json', () => {
  let folder: string;

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'generate-'));
    for (const file of ['package.json', 'prisma.config.ts', 'prisma', 'scripts/prisma-offline.js']) {
      await cp(path.join(root, file), path.join(folder, file), { recursive: true });
    }
    await symlink(path.join(root, 'node_modules'), path.join(folder, 'node_modules'));
    const env = { ...process.env, DATABASE_URL: '' };
    await promisify(execFile)(process.execPath, ['scripts/prisma-offline.js', 'generate'], { cwd: folder, env });
  }, 60_000);

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('writes relative imports that name the compiled .js files', async () => {
    const generated = path.join(folder, 'src/infrastructure/database/driver/generated');
    const specifiers: string[] = [];
    for (const file of await sourceFiles(generated)) {
      const text = await readFile(file, 'utf8');
      const imports = text.matchAll(/^(?:import|export)\b.*\bfrom\s+["'](\.{1,2}\/[^"']+)["']/gm);
      specifiers.push(...[...imports].map((match) => match[1] ?? ''));
    }
    expect(specifiers).toContain('./internal/class.js');
    expect(specifiers.filter((specifier) => !specifier.endsWith('.js'))).toEqual([]);
  });
});
