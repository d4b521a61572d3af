// A plain HTTP client for tests that drive service processes (tests/support/service-process.ts)
// over real sockets, where a request may be answered, refused, or cut when the process dies.
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  // The service's JSON answers, read by field in the tests (as supertest types them).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as supertest types it
  readonly body: any;
}

export interface Call {
  readonly auth?: string;
  readonly body?: unknown;
  readonly idempotencyKey?: string;
  /** Gives up (rejects) when no whole answer came within this long: a request that hangs. */
  readonly timeoutMs?: number;
}

/**
 * One request on a connection of its own (no keep-alive pool: a connection reused after the
 * server closed it would fail for a reason the test is not about). Rejects when no answer came:
 * connection refused, or cut before the whole answer arrived.
 */
export function call(baseUrl: string, method: string, path: string, options: Call = {}): Promise<Answer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { Connection: 'close' };
  if (options.auth) headers.Authorization = options.auth;
  if (options.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;
  if (payload !== undefined) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, baseUrl), { method, headers, agent: false }, (res) =>
      readAnswer(res, resolve, reject),
    );
    req.on('error', reject);
    if (options.timeoutMs !== undefined)
      req.setTimeout(options.timeoutMs, () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    req.end(payload);
  });
}

export interface Upload {
  /** The answer, once the body is complete and the service has answered. */
  readonly answer: Promise<Answer>;
  /** Sends the rest of the body. */
  finish(): void;
}

/**
 * A write whose body is still being uploaded: it resolves once the service has read the request
 * head (its `100 Continue` proves the request is in the server's hands) and half the body has been
 * sent; the rest goes only when `finish()` is called.
 */
export function startUpload(
  baseUrl: string,
  path: string,
  options: Call & { readonly body: unknown },
): Promise<Upload> {
  const payload = Buffer.from(JSON.stringify(options.body));
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'Content-Length': String(payload.length),
    Expect: '100-continue',
  };
  if (options.auth) headers.Authorization = options.auth;
  if (options.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;
  return new Promise((resolveStarted, rejectStarted) => {
    const req = httpRequest(new URL(path, baseUrl), { method: 'POST', headers, agent: false });
    const half = Math.floor(payload.length / 2);
    const answer = new Promise<Answer>((resolve, reject) => {
      req.on('response', (res) => readAnswer(res, resolve, reject));
      req.on('error', (error) => {
        reject(error);
        rejectStarted(error);
      });
    });
    // Handled here too: the caller may not be awaiting the answer yet when the upload fails.
    answer.catch(() => undefined);
    req.once('continue', () => {
      req.write(payload.subarray(0, half), () =>
        resolveStarted({ answer, finish: () => req.end(payload.subarray(half)) }),
      );
    });
  });
}

function readAnswer(res: IncomingMessage, resolve: (answer: Answer) => void, reject: (error: Error) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('error', reject);
  res.on('close', () => {
    if (!res.complete) reject(new Error('answer cut short'));
  });
  res.on('end', () => {
    if (!res.complete) return reject(new Error('answer cut short'));
    const text = Buffer.concat(chunks).toString();
    try {
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined });
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

/** Signs up through the API and returns the `Authorization` value of the new account. */
export async function signUpThrough(baseUrl: string, name: string): Promise<{ id: string; auth: string }> {
  const answer = await call(baseUrl, 'POST', '/v1/accounts', {
    body: { email: `${name}-${process.pid}-${Date.now()}@example.com`, password: 'correct horse battery' },
  });
  if (answer.status !== 201) throw new Error(`sign-up failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  return { id: answer.body.id, auth: `Bearer ${answer.body.api_key}` };
}
