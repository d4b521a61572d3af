// The Dockerfile reader behind CI's container replay (scripts/container/): it must read our
// Dockerfile as Docker does, and refuse what it cannot replay rather than skip it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { dockerIgnoreMatcher } from '../../../scripts/container/build-context';
import { DockerfileError, parseDockerfile } from '../../../scripts/container/dockerfile';

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

  it.each([
    ['an instruction it does not know', 'ADD https://example.com/x.tgz ./'],
    ['an ENTRYPOINT, which would change what CMD runs', 'ENTRYPOINT ["tini"]'],
    ['a COPY with a wildcard', 'COPY *.json ./'],
    ['an ENV that refers to another variable', 'ENV PATH=$PATH:/x'],
    ['a COPY flag it does not know', 'COPY --link a ./'],
  ])('refuses %s', (_, line) => {
    expect(() => parseDockerfile(`FROM node:26 AS build\n${line}`)).toThrow(DockerfileError);
  });

  it("reads the project's Dockerfile: a runtime stage that runs its CMD as a non-root user", () => {
    const stages = parseDockerfile(readFileSync(path.join(__dirname, '../../../Dockerfile'), 'utf8'));
    const runtime = stages[stages.length - 1];
    const users = runtime?.instructions.flatMap((step) => (step.kind === 'USER' ? [step.user] : []));
    expect(users?.at(-1)).not.toBe('root');
    expect(runtime?.instructions.some((step) => step.kind === 'CMD' && step.command.form === 'exec')).toBe(true);
    // Only what the build stage produced reaches the image: nothing from the build context.
    expect(runtime?.instructions.filter((step) => step.kind === 'COPY' && step.from === null)).toEqual([]);
  });
});

describe('dockerIgnoreMatcher', () => {
  const ignored = dockerIgnoreMatcher(
    ['# generated', 'node_modules', '/dist/', 'src/**/generated', '*.log', '!keep.log'].join('\n'),
  );

  it.each([
    ['node_modules/pg/index.js', true],
    ['dist', true],
    ['src/infrastructure/persistence/prisma/generated/client.ts', true],
    ['src/infrastructure/persistence/prisma/schema.ts', false],
    ['debug.log', true],
    ['keep.log', false],
    ['scripts/prisma-offline.js', false],
  ])('%s ignored: %s', (file, expected) => {
    expect(ignored(file)).toBe(expected);
  });
});
