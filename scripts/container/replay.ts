// CI's stand-in for `docker build` + `docker run` on a machine without a Docker engine:
// replays the Dockerfile's stages in a temporary folder (stages.ts), then starts the runtime
// stage's CMD as its non-root USER, once against a fresh database on DATABASE_URL's server (as
// docker-compose.yml runs it), once with no settings (refused: the embedded database must be
// accepted in production) and once with ACCEPT_EMBEDDED_DATABASE=on (its data in /app/.data).
// Before that it checks the image itself: the size of its node_modules, its labels, its volumes.
//
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres node --import tsx scripts/container/replay.ts
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { BuildContext } from './build-context';
import { parseDockerfile } from './dockerfile';
import { checkModulesSize, diskUsageMiB, labelMismatches } from './image-checks';
import { checkRefusal, checkService } from './service-check';
import { hostUser, replayStages, type ReplayedStage } from './stages';

async function withDatabase(serverUrl: string, use: (url: string) => Promise<void>): Promise<void> {
  const name = `container_replay_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    try {
      await use(url.toString());
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
}

/** The worker count docker-compose.yml gives the service, so that the replay runs it the same way. */
function composeWorkers(project: string): string {
  const compose = readFileSync(path.join(project, 'docker-compose.yml'), 'utf8');
  const workers = /^\s*WEB_CONCURRENCY:\s*"?\$\{WEB_CONCURRENCY:-(\d+)\}"?\s*$/m.exec(compose)?.[1];
  if (!workers) throw new Error('docker-compose.yml: no WEB_CONCURRENCY: ${WEB_CONCURRENCY:-<n>} for the service');
  return workers;
}

function size(folder: string): string {
  return execFileSync('du', ['-sh', folder], { encoding: 'utf8' }).split('\t')[0] ?? '?';
}

/** The labels say what the image's own package.json says. */
function checkLabels(image: ReplayedStage, app: string): void {
  const wrong = labelMismatches(image.labels, JSON.parse(readFileSync(path.join(app, 'package.json'), 'utf8')));
  if (wrong.length > 0) throw new Error(`the image's labels:\n${wrong.join('\n')}`);
  console.log(`replay: labels ${JSON.stringify(image.labels)}`);
}

/** A new volume starts with the mount point's content and owner: the USER must own it to write there. */
function checkVolumes(image: ReplayedStage): void {
  for (const volume of image.volumes) {
    const owner = statSync(path.join(image.root, volume)).uid;
    if (owner !== (image.user?.uid ?? 0)) {
      throw new Error(`VOLUME ${volume} belongs to uid ${owner}, not to the image's USER: the service cannot write it`);
    }
  }
  console.log(`replay: volumes ${image.volumes.join(' ') || 'none'}, owned by the image's USER`);
}

async function main(): Promise<void> {
  const serverUrl = process.env.DATABASE_URL?.trim();
  if (!serverUrl) {
    throw new Error('DATABASE_URL must name a PostgreSQL server: the replay creates its database there');
  }
  if (process.getuid?.() !== 0)
    throw new Error('run the replay as root: it switches to an unprivileged user as USER does');
  const project = path.resolve(__dirname, '..', '..');
  const stages = parseDockerfile(readFileSync(path.join(project, 'Dockerfile'), 'utf8'));
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'container-replay-'));
  // The unprivileged user must reach the runtime stage's files, as in an image.
  chmodSync(workDir, 0o755);
  // Stopped by hand or by CI: the folder holds a whole install, do not leave it behind.
  const exitCodes: Array<[NodeJS.Signals, number]> = [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ];
  for (const [signal, code] of exitCodes) {
    process.once(signal, () => {
      rmSync(workDir, { recursive: true, force: true });
      process.exit(code);
    });
  }
  try {
    const replayed = await replayStages(stages, {
      context: new BuildContext(project),
      workDir,
      unprivileged: hostUser(process.env.REPLAY_USER ?? 'nobody'),
    });
    const image = replayed[replayed.length - 1];
    if (!image) throw new Error('no stage replayed');
    const app = path.join(image.root, image.workdir);
    console.log(`replay: image ${image.name}: ${app} ${size(app)}`);
    console.log(`replay: ${checkModulesSize(diskUsageMiB(path.join(app, 'node_modules')))}`);
    checkLabels(image, app);
    checkVolumes(image);
    const workers = composeWorkers(project);
    await withDatabase(serverUrl, (url) =>
      checkService(image, { DATABASE_URL: url, WEB_CONCURRENCY: workers }, `on PostgreSQL, ${workers} workers`),
    );
    await checkRefusal(image, {}, 'no settings', /ACCEPT_EMBEDDED_DATABASE=on/);
    await checkService(image, { ACCEPT_EMBEDDED_DATABASE: 'on' }, 'the embedded database, accepted');
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

main().then(
  () => console.log('container replay: passed'),
  (error: unknown) => {
    console.error(error);
    console.error('container replay: FAILED');
    process.exitCode = 1;
  },
);
