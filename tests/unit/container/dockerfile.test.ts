// The Dockerfile reader behind CI's container replay (scripts/container/): it must read our
// Dockerfile as Docker does, and refuse what it cannot replay rather than skip it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { dockerIgnoreMatcher } from '../../../scripts/container/build-context';
import { DockerfileError, parseDockerfile, type Instruction } from '../../../scripts/container/dockerfile';
import { labelMismatches } from '../../../scripts/container/image-checks';
import { readConfig } from '../../../src/config';

const ROOT = path.join(__dirname, '../../..');

describe('parseDockerfile', () => {
  it('joins continued lines, drops comments inside them and unquotes ENV values', () => {
    const [stage] = parseDockerfile(
      [
        '# syntax=docker/dockerfile:1',
        'FROM node:26-trixie-slim AS run',
        'ENV A=1 \\',
        '    # a comment',
        '    B="x y" \\',
        "    C='z'",
      ].join('\n'),
    );
    expect(stage).toEqual({
      name: 'run',
      image: 'node:26-trixie-slim',
      instructions: [{ kind: 'ENV', variables: { A: '1', B: 'x y', C: 'z' } }],
    });
  });

  it('reads COPY flags, HEALTHCHECK options and exec-form commands', () => {
    const [, runtime] = parseDockerfile(
      [
        'FROM node:26 AS build',
        'FROM node:26 AS runtime',
        'COPY --from=build --chown=node:node /app/.data ./.data',
        'HEALTHCHECK --interval=10s --retries=3 CMD ["node", "-e", "1"]',
        'CMD node dist/main.js',
      ].join('\n'),
    );
    expect(runtime?.instructions).toEqual([
      { kind: 'COPY', from: 'build', chown: 'node:node', sources: ['/app/.data'], destination: './.data' },
      { kind: 'HEALTHCHECK', command: { form: 'exec', argv: ['node', '-e', '1'] } },
      { kind: 'CMD', command: { form: 'shell', script: 'node dist/main.js' } },
    ]);
  });

  it('reads LABEL pairs with quoted values, and VOLUME as a JSON array or as words', () => {
    const [stage] = parseDockerfile(
      [
        'FROM node:26 AS run',
        'LABEL org.opencontainers.image.title="a b" \\',
        "      org.opencontainers.image.version='1.2.3'",
        'VOLUME ["/app/.data", "/var/x"]',
        'VOLUME /a /b',
      ].join('\n'),
    );
    expect(stage?.instructions).toEqual([
      {
        kind: 'LABEL',
        labels: { 'org.opencontainers.image.title': 'a b', 'org.opencontainers.image.version': '1.2.3' },
      },
      { kind: 'VOLUME', paths: ['/app/.data', '/var/x'] },
      { kind: 'VOLUME', paths: ['/a', '/b'] },
    ]);
  });

  it.each([
    ['an instruction it does not know', 'ADD https://example.com/x.tgz ./'],
    ['an ENTRYPOINT, which would change what CMD runs', 'ENTRYPOINT ["tini"]'],
    ['a COPY with a wildcard', 'COPY *.json ./'],
    ['an ENV that refers to another variable', 'ENV PATH=$PATH:/x'],
    ['a COPY flag it does not know', 'COPY --link a ./'],
    ['a LABEL in the old `key value` form', 'LABEL version 1.0'],
    ['a LABEL that refers to a variable', 'LABEL version=$VERSION'],
    ['a VOLUME relative to WORKDIR', 'VOLUME .data'],
    ['a VOLUME that is not a JSON array of strings', 'VOLUME ["/a", 1]'],
  ])('refuses %s', (_, line) => {
    expect(() => parseDockerfile(`FROM node:26 AS build\n${line}`)).toThrow(DockerfileError);
  });

  it("reads the project's Dockerfile: a runtime stage that runs its CMD as a non-root user", () => {
    const stages = parseDockerfile(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
    const runtime = stages[stages.length - 1];
    const users = runtime?.instructions.flatMap((step) => (step.kind === 'USER' ? [step.user] : []));
    expect(users?.at(-1)).not.toBe('root');
    expect(runtime?.instructions.some((step) => step.kind === 'CMD' && step.command.form === 'exec')).toBe(true);
    // Only what the build stage produced reaches the image: nothing from the build context.
    expect(runtime?.instructions.filter((step) => step.kind === 'COPY' && step.from === null)).toEqual([]);
  });
});

describe("the project's Dockerfile", () => {
  const stages = parseDockerfile(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
  const [build, runtime] = stages;
  const packageJson: unknown = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const steps = <K extends Instruction['kind']>(stage: typeof build, kind: K) =>
    (stage?.instructions ?? []).filter((step): step is Extract<Instruction, { kind: K }> => step.kind === kind);

  it("labels the image with package.json's name, description, version and licence", () => {
    const labels = steps(runtime, 'LABEL').reduce<Record<string, string>>(
      (all, step) => ({ ...all, ...step.labels }),
      {},
    );
    expect(labelMismatches(labels, packageJson)).toEqual([]);
  });

  it("declares the embedded database's default data folder a volume", () => {
    const workdir = steps(runtime, 'WORKDIR').at(-1)?.path ?? '/';
    const dataDir = path.posix.resolve(workdir, readConfig({}).dataDir);
    expect(steps(runtime, 'VOLUME').flatMap((step) => step.paths)).toEqual([dataDir]);
  });

  it('copies, before `npm ci`, only the scripts the install runs (its postinstall)', () => {
    const install = build?.instructions.findIndex((step) => step.kind === 'RUN' && /\bnpm ci\b/.test(step.script));
    expect(install).toBeGreaterThan(0);
    const before = (build?.instructions ?? []).slice(0, install);
    const copiedScripts = before
      .flatMap((step) => (step.kind === 'COPY' ? step.sources : []))
      .filter((source) => source === 'scripts' || source.startsWith('scripts/'));
    const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const installRuns = (scripts.postinstall ?? '').split(/\s+/).filter((word) => word.startsWith('scripts/'));
    expect(installRuns.length).toBeGreaterThan(0);
    expect(copiedScripts).toEqual(installRuns);
  });
});

describe('dockerIgnoreMatcher', () => {
  const ignored = dockerIgnoreMatcher(
    ['# generated', 'node_modules', '/dist/', 'src/**/generated', '*.log', '!keep.log'].join('\n'),
  );

  it.each([
    ['node_modules/pg/index.js', true],
    ['dist', true],
    ['src/infrastructure/database/driver/generated/client.ts', true],
    ['src/infrastructure/database/driver/prisma-client.ts', false],
    ['debug.log', true],
    ['keep.log', false],
    ['scripts/prisma-offline.js', false],
  ])('%s ignored: %s', (file, expected) => {
    expect(ignored(file)).toBe(expected);
  });
});
