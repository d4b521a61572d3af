// Replays a Dockerfile's stages in folders of this machine: each stage gets a root folder that
// stands for the image's `/`, its RUN steps run in the WORKDIR there on the Node major of its
// `node:<major>` base image, and a non-root USER becomes an unprivileged user of this machine.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { BuildContext } from './build-context';
import type { Command, Stage } from './dockerfile';

export interface HostUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

export interface ReplayedStage {
  readonly name: string;
  readonly root: string;
  readonly workdir: string;
  readonly env: Record<string, string>;
  readonly user: HostUser | null;
  readonly healthcheck: Command | null;
  readonly command: Command | null;
  readonly labels: Record<string, string>;
  /** The VOLUME paths: what stays writable when the container's root is read-only. */
  readonly volumes: string[];
}

export function hostUser(name: string): HostUser {
  const id = (flag: string): number => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
  return { name, uid: id('-u'), gid: id('-g') };
}

/** Runs a program to its end; rejects unless it exits 0. */
export function run(
  argv: readonly string[],
  options: { cwd: string; env: Record<string, string>; user: HostUser | null; quiet?: boolean },
): Promise<void> {
  const [file, ...args] = argv;
  if (!file) return Promise.reject(new Error('nothing to run'));
  const child = spawn(file, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: options.quiet ? 'ignore' : 'inherit',
    ...(options.user ? { uid: options.user.uid, gid: options.user.gid } : {}),
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${argv.join(' ')} ended with ${signal ?? `exit code ${code}`}`)),
    );
  });
}

export function argvOf(command: Command): string[] {
  return command.form === 'exec' ? command.argv : ['/bin/sh', '-c', command.script];
}

/**
 * What a build host's network gives its builds: this machine's extra CA certificates and proxies.
 * Without them npm fails TLS to the registry (SELF_SIGNED_CERT_IN_CHAIN) and leans on its cache.
 */
function hostNetworkEnv(): Record<string, string> {
  const names = /^(NODE_EXTRA_CA_CERTS|https?_proxy|no_proxy)$/i;
  return Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => names.test(entry[0]) && !!entry[1]),
  );
}

/** A folder holding the `node` binary of the base image's version, from the npm package `node`. */
async function nodeBinFor(image: string, toolsDir: string): Promise<string> {
  // node:26, node:26.10 or node:26.10.0, with or without a variant: npm takes each as a range.
  const tag = /^node:(\d+(?:\.\d+){0,2})(?:-|$)/.exec(image)?.[1];
  if (!tag) throw new Error(`FROM ${image}: the replay knows only node:<version>[-variant] images`);
  const prefix = path.join(toolsDir, `node-${tag}`);
  const bin = path.join(prefix, 'node_modules', 'node', 'bin');
  if (!existsSync(path.join(bin, 'node'))) {
    const npmEnv = {
      ...hostNetworkEnv(),
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/root',
    };
    const install = ['npm', 'install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--loglevel=error'];
    await run([...install, `node@${tag}`], { cwd: toolsDir, env: npmEnv, user: null });
  }
  const version = execFileSync(path.join(bin, 'node'), ['--version'], { encoding: 'utf8' }).trim();
  if (version !== `v${tag}` && !version.startsWith(`v${tag}.`)) {
    throw new Error(`FROM ${image}: installed Node ${version}`);
  }
  console.log(`replay: FROM ${image} runs on Node ${version}`);
  return bin;
}

export async function replayStages(
  stages: readonly Stage[],
  options: { context: BuildContext; workDir: string; unprivileged: HostUser },
): Promise<ReplayedStage[]> {
  const toolsDir = path.join(options.workDir, 'tools');
  mkdirSync(toolsDir, { recursive: true });
  const done = new Map<string, ReplayedStage>();
  for (const stage of stages) {
    const root = path.join(options.workDir, 'stages', stage.name);
    mkdirSync(root, { recursive: true });
    const bin = await nodeBinFor(stage.image, toolsDir);
    // What the node image's environment gives a RUN: its PATH (with this stage's Node first), a HOME.
    let env: Record<string, string> = {
      ...hostNetworkEnv(),
      PATH: `${bin}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
      HOME: process.env.HOME ?? '/root',
    };
    let workdir = '/';
    let user: HostUser | null = null;
    let healthcheck: Command | null = null;
    let command: Command | null = null;
    let labels: Record<string, string> = {};
    const volumes: string[] = [];
    const onHost = (containerPath: string): string => path.join(root, path.posix.resolve(workdir, containerPath));
    for (const step of stage.instructions) {
      switch (step.kind) {
        case 'WORKDIR':
          workdir = path.posix.resolve(workdir, step.path);
          mkdirSync(onHost('.'), { recursive: true });
          break;
        case 'ENV':
          env = { ...env, ...step.variables };
          break;
        case 'USER':
          user = step.user === 'root' ? null : options.unprivileged;
          break;
        case 'EXPOSE':
          break;
        case 'LABEL':
          labels = { ...labels, ...step.labels };
          break;
        case 'VOLUME':
          // Docker makes the mount point in the image, with what is there already as a new volume's content.
          for (const volume of step.paths) mkdirSync(onHost(volume), { recursive: true });
          volumes.push(...step.paths);
          break;
        case 'HEALTHCHECK':
          healthcheck = step.command;
          break;
        case 'CMD':
          command = step.command;
          break;
        case 'RUN':
          if (workdir !== '/' && step.script.includes(workdir)) {
            throw new Error(
              `RUN ${step.script}: write paths relative to WORKDIR ${workdir}, so that the replay can run it`,
            );
          }
          console.log(`replay: [${stage.name}] RUN ${step.script}`);
          await run(['/bin/sh', '-c', step.script], { cwd: onHost('.'), env, user });
          break;
        case 'COPY':
          copy(step, {
            from: step.from === null ? null : done.get(step.from),
            context: options.context,
            onHost,
            unprivileged: options.unprivileged,
          });
          break;
      }
    }
    done.set(stage.name, { name: stage.name, root, workdir, env, user, healthcheck, command, labels, volumes });
  }
  return [...done.values()];
}

function copy(
  step: Extract<Stage['instructions'][number], { kind: 'COPY' }>,
  options: {
    from: ReplayedStage | null | undefined;
    context: BuildContext;
    onHost: (containerPath: string) => string;
    unprivileged: HostUser;
  },
): void {
  if (options.from === undefined) throw new Error(`COPY --from=${step.from}: no earlier stage of that name`);
  const from = options.from;
  const destination = options.onHost(step.destination);
  const intoFolder = step.destination.endsWith('/') || step.sources.length > 1;
  for (const source of step.sources) {
    const fromStage = from ? path.join(from.root, path.posix.resolve('/', source)) : null;
    const isFolder = fromStage
      ? existsSync(fromStage) && statSync(fromStage).isDirectory()
      : options.context.isDirectory(source);
    const target = intoFolder && !isFolder ? path.join(destination, path.posix.basename(source)) : destination;
    mkdirSync(path.dirname(target), { recursive: true });
    if (fromStage) {
      if (!existsSync(fromStage)) throw new Error(`COPY --from=${step.from} ${source}: not in that stage`);
      execFileSync('cp', ['-a', '--no-target-directory', fromStage, target]);
    } else {
      options.context.copy(source, target);
    }
    if (step.chown !== null) {
      // Every non-root owner in the Dockerfile stands for the one unprivileged user of the replay.
      const { uid, gid } = step.chown.startsWith('root') ? { uid: 0, gid: 0 } : options.unprivileged;
      execFileSync('chown', ['-R', `${uid}:${gid}`, target]);
    }
  }
}
