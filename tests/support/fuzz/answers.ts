import http from 'node:http';
import type { FuzzRequest } from './requests';

export interface RawAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
}

/** Sends the request byte for byte as generated (no client-side JSON or header fixing) and reads the whole answer. */
export function send(port: number, agent: http.Agent, fuzz: FuzzRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const body = fuzz.body === undefined ? undefined : Buffer.from(fuzz.body);
    const headers: Record<string, string> = { ...fuzz.headers };
    if (body !== undefined && !fuzz.chunked) headers['Content-Length'] = String(body.length);
    if (fuzz.chunked) headers['Transfer-Encoding'] = 'chunked';
    let answered = false;
    const req = http.request(
      { host: '127.0.0.1', port, method: fuzz.method, path: fuzz.path, headers, agent },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    // The server may answer (413, 415) and close before it has read a large body: the answer counts.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (body !== undefined && fuzz.chunked) {
      req.write(body.subarray(0, Math.floor(body.length / 2)));
      req.end(body.subarray(Math.floor(body.length / 2)));
    } else {
      req.end(body);
    }
  });
}

/** Everything wrong with an answer: a 5xx, a body that is not JSON, an error that is not a problem document. */
export function faultsOf(answer: RawAnswer): string[] {
  const faults: string[] = [];
  if (answer.status >= 500) faults.push(`status ${answer.status}`);
  // A deletion answers 204, whose answer has no body (nor a Content-Type to say what it is).
  if (answer.status === 204)
    return answer.text === '' && answer.headers['content-type'] === undefined ? [] : ['a 204 with a body'];
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return [...faults, `the body is not JSON: ${JSON.stringify(answer.text.slice(0, 200))}`];
  }
  const type = answer.headers['content-type'] ?? '';
  if (answer.status < 400) {
    if (!/^application\/json\b/.test(type)) faults.push(`a success with content-type ${JSON.stringify(type)}`);
    return faults;
  }
  if (!/^application\/problem\+json\b/.test(type)) faults.push(`an error with content-type ${JSON.stringify(type)}`);
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return [...faults, 'the error body is not an object'];
  const problem: Record<string, unknown> = { ...body };
  for (const member of ['type', 'title', 'detail', 'code']) {
    if (typeof problem[member] !== 'string')
      faults.push(`problem member ${member} is ${JSON.stringify(problem[member])}`);
  }
  if (problem.status !== answer.status)
    faults.push(`problem status ${JSON.stringify(problem.status)} is not the HTTP status ${answer.status}`);
  if (typeof problem.code === 'string' && problem.type !== `/problems/${problem.code}`)
    faults.push(`problem type ${JSON.stringify(problem.type)} does not match code ${problem.code}`);
  if (problem.code === 'validation_failed') {
    const errors = problem.errors;
    const wellFormed =
      Array.isArray(errors) &&
      errors.length > 0 &&
      errors.every(
        (error: unknown) =>
          typeof error === 'object' &&
          error !== null &&
          typeof Reflect.get(error, 'field') === 'string' &&
          typeof Reflect.get(error, 'message') === 'string',
      );
    if (!wellFormed)
      faults.push(`validation_failed without an errors list of {field, message}: ${JSON.stringify(errors)}`);
    if (answer.status !== 400) faults.push(`validation_failed with status ${answer.status}`);
  }
  return faults;
}
