// The service as a process: an orderly stop (SIGTERM) drains the requests in flight within a
// bounded grace, and a crash (SIGKILL) under a write load loses no acknowledged write and leaves
// nothing half-written (docs/operations.md).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, signUpThrough, startUpload, type Answer } from '../support/process-client';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { provisionTestDatabase } from '../support/test-database';

const onServer = Boolean(process.env.DATABASE_URL?.trim());
/** Limits off (the load is ours) and no request log to wade through. */
const QUIET = { LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '0', RATE_LIMIT_ACCOUNTS_PER_MINUTE: '0' };
const HOUR = 3_600_000;

/** A store for the processes of one test: a fresh database on the server, or a fresh embedded data folder. */
async function freshStore(): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  if (onServer) {
    const database = await provisionTestDatabase();
    return { env: { DATABASE_URL: database.connectionString }, close: () => database.close() };
  }
  const folder = await mkdtemp(join(tmpdir(), 'tns-lifecycle-'));
  return { env: { DATA_DIR: folder }, close: () => rm(folder, { recursive: true, force: true }) };
}

/** Ends a process the test may have left running (a failed assertion) without hiding the failure. */
async function ensureStopped(service: ServiceProcess | undefined): Promise<void> {
  await service?.kill('SIGKILL');
}

describe('SIGTERM', () => {
  it('lets the requests in flight finish with their answers, refuses new connections and exits 0', async () => {
    const store = await freshStore();
    let service: ServiceProcess | undefined;
    try {
      service = await startServiceProcess({ ...store.env, ...QUIET, SHUTDOWN_GRACE_MS: '120000' });
      const { url } = service;
      const me = await signUpThrough(url, 'drain');
      const paused = await call(url, 'POST', '/v1/pause-time', { auth: me.auth });
      expect(paused.status).toBe(200);

      // Writes of several kinds, each in the server's hands with half its body uploaded.
      const anchor = await startUpload(url, '/v1/anchors', { auth: me.auth, body: { description: 'Set while stopping' } });
      const item = await startUpload(url, '/v1/items', { auth: me.auth, body: { description: 'Found while stopping' }, idempotencyKey: 'drain-item' });
      const timeline = await startUpload(url, '/v1/timelines', { auth: me.auth, body: { name: 'Drained', destination_time: '1969-07-20T20:17:40Z' } });
      const shift = await startUpload(url, '/v1/fast-forward', { auth: me.auth, body: { duration: '1h' } });
      // And a burst sent just before the signal: each is answered, or refused before it was read.
      const burst = Array.from({ length: 10 }, (_, n) =>
        call(url, 'POST', '/v1/anchors', { auth: me.auth, body: { description: `Burst ${n}` } }).then(
          (answer): Answer | 'not read' => answer,
          () => 'not read' as const,
        ),
      );

      const exited = service.kill('SIGTERM');
      await service.printed('no longer accepting connections');
      await expect(call(url, 'GET', '/healthz')).rejects.toMatchObject({ code: 'ECONNREFUSED' });

      for (const upload of [anchor, item, timeline, shift]) upload.finish();
      const [anchorAnswer, itemAnswer, timelineAnswer, shiftAnswer] = await Promise.all([anchor.answer, item.answer, timeline.answer, shift.answer]);
      expect(anchorAnswer).toMatchObject({ status: 201, body: { description: 'Set while stopping' } });
      expect(itemAnswer).toMatchObject({ status: 201, body: { item_description: 'Found while stopping' } });
      expect(timelineAnswer).toMatchObject({ status: 201, body: { name: 'Drained', status: 'open' } });
      expect(shiftAnswer).toMatchObject({ status: 200 });
      expect(Date.parse(shiftAnswer.body.new_time) - Date.parse(paused.body.paused_at)).toBe(HOUR);
      const burstAnswers = (await Promise.all(burst)).filter((answer) => answer !== 'not read');
      for (const answer of burstAnswers) expect(answer.status).toBe(201);

      expect(await exited).toEqual({ code: 0, signal: null });
      expect(service.output()).not.toContain('grace over');

      // Every acknowledged write is there for the next process.
      service = await startServiceProcess({ ...store.env, ...QUIET });
      const resumed = await call(service.url, 'POST', '/v1/resume-time', { auth: me.auth });
      expect(resumed.status).toBe(200);
      expect(resumed.body.current_time).toBe(shiftAnswer.body.new_time);
      expect((await call(service.url, 'GET', `/timeline/${timelineAnswer.body.id}`, { auth: me.auth })).body).toEqual(timelineAnswer.body);
      const retried = await call(service.url, 'POST', '/v1/items', { auth: me.auth, body: { description: 'Found while stopping' }, idempotencyKey: 'drain-item' });
      expect(retried).toMatchObject({ status: 201, body: itemAnswer.body, headers: { 'idempotent-replayed': 'true' } });
      const check = await call(service.url, 'POST', '/v1/paradox-checks', {
        auth: me.auth,
        body: { timeline_id: 'primary', proposed_changes: [{ item_id: itemAnswer.body.id }] },
      });
      expect(check.status).toBe(200);
      for (const answered of [anchorAnswer, ...burstAnswers]) {
        expect((await call(service.url, 'POST', '/v1/return', { auth: me.auth, body: { anchor_id: answered.body.id } })).status).toBe(200);
      }
      expect(await service.stop()).toBe(0);
    } finally {
      await ensureStopped(service);
      await store.close();
    }
  }, 180_000);

  it('closes a request that never finishes when the grace is over, and exits 0', async () => {
    const graceMs = 1_000;
    const store = await freshStore();
    let service: ServiceProcess | undefined;
    try {
      service = await startServiceProcess({ ...store.env, ...QUIET, SHUTDOWN_GRACE_MS: String(graceMs) });
      const me = await signUpThrough(service.url, 'stuck');
      const stuck = await startUpload(service.url, '/v1/anchors', { auth: me.auth, body: { description: 'Never finished' } });

      const signalled = Date.now();
      expect(await service.kill('SIGTERM')).toEqual({ code: 0, signal: null });
      const took = Date.now() - signalled;

      expect(service.output()).toContain('Shutdown grace over');
      await expect(stuck.answer).rejects.toThrow();
      // The bound under test: the client had its grace, and no more than the time to close the database.
      expect(took).toBeGreaterThanOrEqual(graceMs);
      expect(took).toBeLessThan(graceMs + 30_000);
    } finally {
      await ensureStopped(service);
      await store.close();
    }
  }, 120_000);
});
