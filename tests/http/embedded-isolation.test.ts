// The embedded database is its owner's alone: another local user can neither read its files (nor
// connection-url's password) nor use its server, whose port any local user can reach. Needs root,
// to run a process as another user (`nobody`); without root it is skipped, saying so.
import { spawnSync } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { asRoot } from '../support/as-root';

const NOBODY = 65534;
jest.setTimeout(60_000);

/** Every folder and file under `folder`, with its permission bits. */
async function modesUnder(folder: string): Promise<Array<{ file: string; mode: number }>> {
  const found: Array<{ file: string; mode: number }> = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const file = path.join(folder, entry.name);
    found.push({ file, mode: (await lstat(file)).mode & 0o777 });
    if (entry.isDirectory()) found.push(...(await modesUnder(file)));
  }
  return found;
}

describe('the embedded database and other local users', () => {
  let parent: string;
  let service: ServiceProcess | undefined;
  beforeAll(async () => {
    parent = await mkdtemp(path.join(tmpdir(), 'tns-isolation-'));
    // Others may reach the data folder's parent, as they may a home directory.
    await chmod(parent, 0o755);
  });
  afterAll(async () => {
    await service?.kill('SIGKILL');
    await rm(parent, { recursive: true, force: true });
  });

  asRoot('keeps its files and its server from another user, whatever the umask (needs root)', async () => {
    const dataDir = path.join(parent, 'data');
    // A folder of an earlier release, open to all.
    await mkdir(path.join(dataDir, 'pgdata'), { recursive: true, mode: 0o755 });
    await writeFile(path.join(dataDir, 'pgdata', 'left-by-an-earlier-release'), 'x', { mode: 0o644 });
    await chmod(path.join(dataDir, 'pgdata'), 0o755);
    // The service inherits this process's umask: the most careless one.
    const umask = process.umask(0);
    try {
      service = await startServiceProcess({ DATABASE_URL: '', DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    } finally {
      process.umask(umask);
    }
    // Printed right after the line startServiceProcess waits for, perhaps in a later chunk.
    const port = /served at 127\.0\.0\.1:(\d+)\//.exec(await service.printed(/served at 127\.0\.0\.1:\d+\//))?.[1];
    expect(port).toBeDefined();

    const open = (await modesUnder(path.join(dataDir, 'pgdata'))).filter(({ mode }) => (mode & 0o077) !== 0);
    expect(open).toEqual([]);
    expect((await lstat(path.join(dataDir, 'connection-url'))).mode & 0o777).toBe(0o600);
    expect((await lstat(path.join(dataDir, 'pgdata.lock'))).mode & 0o777).toBe(0o600);

    // As nobody: what a local user could try.
    const script = path.join(parent, 'as-nobody.js');
    await writeFile(
      script,
      `const fs = require('node:fs');
       const { Client } = require(${JSON.stringify(require.resolve('pg'))});
       const tried = {};
       for (const file of ['connection-url', 'pgdata/PG_VERSION', 'pgdata/global/pg_control']) {
         try { fs.readFileSync(${JSON.stringify(dataDir)} + '/' + file); tried[file] = 'read'; }
         catch (error) { tried[file] = error.code; }
       }
       const client = new Client({
         host: '127.0.0.1', port: ${port}, user: 'postgres', password: 'postgres', database: 'postgres',
       });
       client.connect().then(
         () => { tried.server = 'connected'; return client.end(); },
         (error) => { tried.server = error.code; },
       ).then(() => console.log(JSON.stringify(tried)));`,
      { mode: 0o644 },
    );
    const run = spawnSync(process.execPath, [script], { uid: NOBODY, gid: NOBODY, encoding: 'utf8', timeout: 20_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      'connection-url': 'EACCES',
      'pgdata/PG_VERSION': 'EACCES',
      'pgdata/global/pg_control': 'EACCES',
      server: '28P01',
    });
    expect(await service.stop()).toBe(0);
    service = undefined;
  });
});
