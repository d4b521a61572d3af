import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { gracefulClose } from '../../src/interfaces/http/graceful-close';

/** Long enough that a test waiting on it times out: a connection kept alive would hold the close this long. */
const FOR_EVER_MS = 600_000;

/** A server whose requests wait, once their body is read, until the test answers them. */
async function serverWithHeldRequests(): Promise<{
  server: Server;
  port: number;
  nextRequest(): Promise<ServerResponse>;
}> {
  const waiting: ((res: ServerResponse) => void)[] = [];
  const arrived: ServerResponse[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const taker = waiting.shift();
      if (taker) taker(res);
      else arrived.push(res);
    });
  });
  server.keepAliveTimeout = FOR_EVER_MS;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the server listens on no TCP port');
  return {
    server,
    port: address.port,
    nextRequest: () =>
      new Promise((resolve) => {
        const res = arrived.shift();
        if (res) resolve(res);
        else waiting.push(resolve);
      }),
  };
}

/** A POST over a keep-alive agent, as browsers and proxies send them. */
function keepAlivePost(
  port: number,
  agent: Agent,
  body = 'x',
): { response: Promise<IncomingMessage & { text: string }>; req: ReturnType<typeof request> } {
  const req = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    agent,
    headers: { 'Content-Length': String(body.length) },
  });
  const response = new Promise<IncomingMessage & { text: string }>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(Object.assign(res, { text })));
    });
  });
  return { response, req };
}

describe('gracefulClose', () => {
  let agent: Agent;
  beforeEach(() => (agent = new Agent({ keepAlive: true })));
  afterEach(() => agent.destroy());

  it('answers the request in flight, then ends its keep-alive connection instead of waiting for it', async () => {
    const { server, port, nextRequest } = await serverWithHeldRequests();
    const connections = gracefulClose(server);
    const { response, req } = keepAlivePost(port, agent);
    req.end('x');
    const held = await nextRequest();

    const closed = connections.close(FOR_EVER_MS);
    held.end('answered');

    const answer = await response;
    expect(answer.statusCode).toBe(200);
    expect(answer.text).toBe('answered');
    expect(answer.headers.connection).toBe('close');
    expect(await closed).toEqual({ cut: false });
  });

  it('also when the answer had begun before the close', async () => {
    const { server, port, nextRequest } = await serverWithHeldRequests();
    const connections = gracefulClose(server);
    const { response, req } = keepAlivePost(port, agent);
    req.end('x');
    const held = await nextRequest();
    held.writeHead(200, { 'Content-Type': 'text/plain' });
    held.write('begun, ');

    const closed = connections.close(FOR_EVER_MS);
    held.end('and finished');

    expect((await response).text).toBe('begun, and finished');
    expect(await closed).toEqual({ cut: false });
  });

  it('cuts a request that is still being sent when the grace is over', async () => {
    const { server, port } = await serverWithHeldRequests();
    const connections = gracefulClose(server);
    const { response, req } = keepAlivePost(port, agent, 'a body that never ends');
    req.write('a body');
    await new Promise<void>((resolve) => server.once('request', () => resolve()));

    expect(await connections.close(50)).toEqual({ cut: true });
    await expect(response).rejects.toThrow();
  });
});
