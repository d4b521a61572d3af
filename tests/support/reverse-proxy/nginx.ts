import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freeLoopbackPort } from '../free-port';
import { waitFor } from '../wait-for';

/** The deployment's config, rendered by the test exactly as docs/reverse-proxy.md tells users to. */
export const NGINX_TEMPLATE = join(__dirname, '../../../deploy/nginx/time-navigation-service.conf.template');
/** Debian's nginx (scripts/ensure-nginx.sh installs it), or NGINX_PATH. */
export const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

export interface Nginx {
  /** `https://127.0.0.1:<port>`: nginx's TLS listener on loopback. */
  readonly origin: string;
  readonly port: number;
  /** The self-signed certificate nginx serves, for the client to trust. */
  readonly certificate: string;
  /** Lines of nginx's access log (the template's `tns_json` format), parsed. */
  accessLog(): Promise<Array<Record<string, unknown>>>;
  stop(): Promise<void>;
}

/**
 * Debian's nginx as a foreground child process, needing no privileges, with its prefix, pid, temp
 * and log paths in a temporary folder, serving the rendered template on a free loopback port in front
 * of `upstream` (`host:port`).
 */
export async function startNginx(upstream: string): Promise<Nginx> {
  if (!existsSync(NGINX)) {
    throw new Error(
      `The reverse-proxy test needs nginx at ${NGINX}: run 'bash scripts/ensure-nginx.sh' as root, ` +
        "install Debian's 'nginx' package, or set NGINX_PATH.",
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'tns-nginx-'));
  // Run by root, nginx's workers drop to an unprivileged user that must reach the temp paths here.
  await chmod(dir, 0o755);
  try {
    const certificate = await selfSignedCertificate(dir);
    // A free port can be taken by someone else before nginx binds it: try another.
    for (let attempt = 1; ; attempt += 1) {
      const port = await freeLoopbackPort();
      const started = await tryStart(dir, port, upstream);
      if (started.process) return running(dir, port, certificate, started.process);
      if (!/Address already in use/.test(started.output) || attempt === 5)
        throw new Error(`nginx did not start:\n${started.output}`);
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The template with the ${TNS_...} values filled in, as envsubst would (nginx's own $variables untouched). */
export function renderTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\$\{(TNS_[A-Z_]+)\}/g, (_whole, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for \${${name}} in the nginx template`);
    return value;
  });
}

async function tryStart(
  dir: string,
  port: number,
  upstream: string,
): Promise<{ process?: ChildProcess; output: string }> {
  const site = renderTemplate(await readFile(NGINX_TEMPLATE, 'utf8'), {
    TNS_LISTEN: `127.0.0.1:${port}`,
    TNS_SERVER_NAME: 'localhost',
    TNS_UPSTREAM: upstream,
    TNS_CERTIFICATE: join(dir, 'certificate.pem'),
    TNS_CERTIFICATE_KEY: join(dir, 'key.pem'),
    TNS_ACCESS_LOG: join(dir, 'access.log'),
  });
  await writeFile(join(dir, 'time-navigation-service.conf'), site);
  // The main context a distribution's nginx.conf would give, with every path under `dir`.
  await writeFile(
    join(dir, 'nginx.conf'),
    [
      `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${join(dir, 'error.log')} warn;`,
      'worker_processes 1;',
      'events { worker_connections 256; }',
      'http {',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (kind) => `  ${kind}_temp_path ${join(dir, `${kind}_temp`)};`,
      ),
      `  include ${join(dir, 'time-navigation-service.conf')};`,
      '}',
      '',
    ].join('\n'),
  );
  const child = spawn(
    NGINX,
    ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log'), '-g', 'daemon off;'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(`nginx exited (${signal ?? code})`));
    child.once('error', (error) => resolve(`nginx could not run: ${error.message}`));
  });
  const outcome = await Promise.race([exited, listening(dir, port, 10_000)]);
  if (outcome === 'listening' && child.exitCode === null) return { process: child, output };
  child.kill('SIGKILL');
  const errorLog = await readFile(join(dir, 'error.log'), 'utf8').catch(() => '');
  return { output: `${outcome}\n${output}${errorLog}` };
}

function running(dir: string, port: number, certificate: string, child: ChildProcess): Nginx {
  return {
    origin: `https://127.0.0.1:${port}`,
    port,
    certificate,
    async accessLog() {
      const text = await readFile(join(dir, 'access.log'), 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line));
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        // TERM is nginx's fast shutdown: the master stops its workers, then itself.
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function selfSignedCertificate(dir: string): Promise<string> {
  const certificate = join(dir, 'certificate.pem');
  const openssl = promisify(execFile);
  await openssl('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout',
    join(dir, 'key.pem'),
    '-out',
    certificate,
  ]).catch((error: unknown) => {
    throw new Error(
      "The reverse-proxy test makes its certificate with openssl: install Debian's 'openssl' " +
        `package (${String(error)})`,
    );
  });
  return readFile(certificate, 'utf8');
}

/**
 * 'listening' once nginx has bound its port (it writes its pid file only after that, so a stranger on
 * the port does not count) and accepts connections; otherwise a reason after `ms`.
 */
function listening(dir: string, port: number, ms: number): Promise<string> {
  const accepts = () =>
    new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  return waitFor(async () => existsSync(join(dir, 'nginx.pid')) && (await accepts()) && 'listening', {
    what: `nginx to listen on 127.0.0.1:${port}`,
    timeoutMs: ms,
    intervalMs: 50,
  }).catch((error: unknown) => String(error));
}
