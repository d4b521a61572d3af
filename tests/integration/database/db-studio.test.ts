// `npm run db:studio` on the embedded database, checked through Studio's own HTTP API (POST /bff)
// with the adapter its page runs: the schema metadata, then a table's rows, as a page load asks.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { openDatabase } from '../../../src/infrastructure/database/open-database';
import { startServiceProcess, type ServiceProcess } from '../../support/service-process';
import { startStudioProcess, type StudioProcess } from '../../support/studio-process';

// PGlite starts in about two seconds, Prisma Studio's CLI in several.
jest.setTimeout(180_000);

/** A page load of Studio: the metadata (with the time zone, in parallel), then `table`'s first rows. */
async function loadPage(studio: StudioProcess, table: string): Promise<Array<Record<string, unknown>>> {
  const [introspectError, metadata] = await studio.adapter.introspect({});
  if (introspectError) throw new Error(`Could not load schema metadata: ${explain(introspectError)}`);
  const shown = metadata.schemas.public?.tables[table];
  if (!shown) throw new Error(`no table ${table} in ${Object.keys(metadata.schemas.public?.tables ?? {}).join(', ')}`);
  const [queryError, result] = await studio.adapter.query(
    { table: shown, pageIndex: 0, pageSize: 25, sortOrder: [] },
    { abortSignal: new AbortController().signal },
  );
  if (queryError) throw new Error(`Could not load ${table}: ${explain(queryError)}`);
  return result.rows;
}

/** The database's error behind a failed Studio call (its query text left out). */
function explain(error: Error): string {
  return inspect({ message: error.message, cause: error.cause }, { depth: 3 }).slice(0, 800);
}

/** The embedded server's password, as the service or db:studio wrote it for its owner. */
async function embeddedPassword(dataDir: string): Promise<string> {
  const password = new URL((await readFile(path.join(dataDir, 'connection-url'), 'utf8')).trim()).password;
  expect(password.length).toBeGreaterThanOrEqual(16);
  return password;
}

/** The command lines of this machine's processes (what `ps` shows any local user) holding `secret`. */
async function commandLinesWith(secret: string): Promise<string[]> {
  const lines: string[] = [];
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const line = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (line.includes(secret)) lines.push(line.replaceAll('\0', ' '));
  }
  return lines;
}

// On a PostgreSQL server (DATABASE_URL), db:studio uses that; these tests are about the embedded one.
const EMBEDDED = { DATABASE_URL: '' };
const LOADS = 5;

describe('npm run db:studio on the embedded database', () => {
  let dataDir: string;
  let studio: StudioProcess | undefined;
  let service: ServiceProcess | undefined;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'tns-studio-'));
  });

  afterEach(async () => {
    await studio?.stop();
    await service?.stop();
    studio = service = undefined;
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves the schema metadata and rows of a database it starts itself, page load after page load', async () => {
    const database = await openDatabase({ DATA_DIR: dataDir });
    try {
      await database.prisma.account.create({
        data: {
          id: 'acc-studio',
          email: 'studio@example.com',
          passwordHash: 'x',
          createdAt: new Date('2030-01-01T00:00:00Z'),
        },
      });
    } finally {
      await database.close();
    }

    studio = await startStudioProcess({ ...EMBEDDED, DATA_DIR: dataDir });
    expect(studio.output).toContain('Started the embedded database');
    const password = await embeddedPassword(dataDir);
    expect(studio.output).not.toContain(password);
    expect(await commandLinesWith(password)).toEqual([]);
    for (let load = 0; load < LOADS; load += 1) {
      const rows = await loadPage(studio, 'accounts');
      expect(rows.map((row) => row.email)).toEqual(['studio@example.com']);
    }
  });

  it("serves the running service's database while the service answers requests", async () => {
    service = await startServiceProcess({ ...EMBEDDED, DATA_DIR: dataDir });
    const signUp = await fetch(`${service.url}/v1/accounts`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'running@example.com', password: 'studio reads beside it' }),
    });
    expect(signUp.status).toBe(201);
    const body: unknown = await signUp.json();
    const apiKey = typeof body === 'object' && body !== null && 'api_key' in body ? String(body.api_key) : '';

    studio = await startStudioProcess({ ...EMBEDDED, DATA_DIR: dataDir });
    expect(studio.output).toContain('Using the embedded database of the running service');
    const password = await embeddedPassword(dataDir);
    expect(studio.output).not.toContain(password);
    expect(await commandLinesWith(password)).toEqual([]);
    const running = service;
    const serviceRequest = async () =>
      (
        await fetch(`${running.url}/v1/anchors`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ description: 'Set while Studio reads' }),
        })
      ).status;
    for (let load = 0; load < LOADS; load += 1) {
      const [rows, ...statuses] = await Promise.all([loadPage(studio, 'accounts'), serviceRequest(), serviceRequest()]);
      expect(rows.map((row) => row.email)).toEqual(['running@example.com']);
      expect(statuses).toEqual([201, 201]);
    }
    expect(await loadPage(studio, 'anchors')).toHaveLength(2 * LOADS);
  });
});
