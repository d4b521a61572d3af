// A sign-up sent from a loopback address of the caller's choosing (127.0.0.0/8 is the machine's own):
// to the service, a client of its own, with its own per-address limits.
import { request } from 'node:http';

export const BENCH_PASSWORD = 'lantern quietly over the fjord';

/** POST /v1/accounts from `address`: its status (0 when the connection failed) and its JSON body. */
export function signUpFrom(
  url: string,
  address: string,
  email: string,
): Promise<{ readonly status: number; readonly body: Record<string, unknown> }> {
  const sent = JSON.stringify({ email, password: BENCH_PASSWORD });
  return new Promise((resolve) => {
    const outgoing = request(
      new URL('/v1/accounts', url),
      {
        method: 'POST',
        localAddress: address,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(sent) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.once('end', () => {
          const text = Buffer.concat(chunks).toString();
          const body: unknown = text.startsWith('{') ? JSON.parse(text) : {};
          resolve({ status: res.statusCode ?? 0, body: typeof body === 'object' && body !== null ? { ...body } : {} });
        });
      },
    );
    outgoing.once('error', () => resolve({ status: 0, body: {} }));
    outgoing.end(sent);
  });
}
