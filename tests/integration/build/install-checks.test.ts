// What a newcomer's install meets first. `npm ci` runs on the machine's own Node, which need not be
// the one the project runs on (docs/operations.md#node): npm must not refuse or warn about the
// project itself there. And an install that skipped the install scripts is refused by `npm start`
// and `npm test` in one line that says what to run (scripts/check-install.js).
import { execFile, execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.join(__dirname, '../../..');
const run = promisify(execFile);

/** The first `node` on PATH outside node_modules: the machine's own, which runs npm itself. */
function machineNode(): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '' || dir.includes('node_modules')) continue;
    try {
      accessSync(path.join(dir, 'node'), constants.X_OK);
      return path.join(dir, 'node');
    } catch {
      // not here
    }
  }
  throw new Error('no node on PATH outside node_modules');
}

/** Runs `command` in `cwd`, `node` first on PATH; its exit code and everything it printed. */
async function outcome(
  command: string,
  args: string[],
  cwd: string,
  node = process.execPath,
): Promise<{ code: number; output: string }> {
  const env = { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}` };
  return run(command, args, { cwd, env }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      output: error.stdout + error.stderr,
    }),
  );
}

describe('npm ci on the machine’s own Node', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'engines-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  // The project's own manifest without its dependencies: npm checks the project's engines and
  // devEngines as it would in `npm ci`, with nothing to fetch. npm checks only devEngines when the
  // manifest has them, so `engines` is checked on its own as well, as npm 10 and other tools read it.
  it.each([
    ['engines and devEngines', true],
    ['engines alone', false],
  ])('neither refuses nor warns about the project, engine-strict included (%s)', async (_, withDevEngines) => {
    const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    const { name, version, engines, devEngines, packageManager } = manifest;
    const checked = { name, version, private: true, engines, packageManager, ...(withDevEngines && { devEngines }) };
    await writeFile(path.join(folder, 'package.json'), JSON.stringify(checked));
    const node = machineNode();
    expect(await outcome('node', ['--version'], folder, node)).toEqual({
      code: 0,
      output: `${execFileSync(node, ['--version'])}`,
    });
    const installed = await outcome('npm', ['install', '--engine-strict', '--no-audit', '--offline'], folder, node);
    expect(installed.output).not.toMatch(/EBAD(DEV)?ENGINE/);
    expect(installed.code).toBe(0);
  });
});

describe('npm start and npm test after an install without its scripts', () => {
  let folder: string;
  const pinned = async () =>
    (JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { devDependencies: { node: string } })
      .devDependencies.node;

  beforeEach(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'check-install-'));
    await mkdir(path.join(folder, 'scripts'));
    await cp(path.join(root, 'scripts/check-install.js'), path.join(folder, 'scripts/check-install.js'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  const manifest = (node: string) => JSON.stringify({ name: 'x', devDependencies: { node } });

  it('go on in a full install on the pinned Node, saying nothing', async () => {
    expect(await outcome(process.execPath, ['scripts/check-install.js'], root)).toEqual({ code: 0, output: '' });
  });

  it('refuse in one line on another Node than the pinned one', async () => {
    await writeFile(path.join(folder, 'package.json'), manifest('1.0.0'));
    const { code, output } = await outcome(process.execPath, ['scripts/check-install.js'], folder);
    expect(code).toBe(1);
    expect(output.trim().split('\n')).toEqual([
      expect.stringMatching(/not the pinned 1\.0\.0.*npm ci --ignore-scripts=false/),
    ]);
  });

  it('refuse in one line without the generated database client', async () => {
    await writeFile(path.join(folder, 'package.json'), manifest(await pinned()));
    const { code, output } = await outcome(process.execPath, ['scripts/check-install.js'], folder);
    expect(code).toBe(1);
    expect(output.trim().split('\n')).toEqual([
      expect.stringMatching(/no generated database client.*npm ci --ignore-scripts=false/),
    ]);
  });

  it('is what the start and test commands run first', async () => {
    const { scripts } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts['start']).toMatch(/^node scripts\/check-install\.js && /);
    expect(scripts['test']).toMatch(/^node scripts\/check-install\.js && /);
  });
});
