import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { answerClientErrors } from '../../src/interfaces/http/client-errors';
import { serviceLog } from '../support/service-log';
import { waitFor, within } from '../support/wait-for';

// A request Node's parser refuses is answered as a problem only when no answer is being sent on
// its connection: with pipelined requests, the one being sent may not be the last one received.
describe('a refused request behind pipelined ones', () => {
  let server: Server;
  let port: number;
  const log = serviceLog();
  /** The paths of the requests the server has received, in order. */
  const arrived: string[] = [];
  /** Answers left unfinished until the tests are over, so none ends before the refusal is read. */
  const unfinished: ServerResponse[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      arrived.push(req.url ?? '');
      if (req.url === '/slow') {
        // The head and a first part: an answer under way.
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.write('first part;');
      }
      // Otherwise received, not answered: its answer has not started.
      unfinished.push(res);
    });
    answerClientErrors(server, log.logger);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    unfinished.forEach((res) => res.end());
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** A raw connection to the server, with what it has received so far and its closing. */
  function rawConnection() {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (data: Buffer) => (received += data.toString('latin1')));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    return { socket, received: () => received, closed };
  }

  it('cuts the connection instead of writing a problem into the answer being sent', async () => {
    const { socket, received, closed } = rawConnection();
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /later HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitFor(() => received().includes('first part;'), { what: "the first part of /slow's answer" });
    socket.write('NOT HTTP\r\n\r\n');
    await within(closed, { what: 'the connection to close', timeoutMs: 5_000 });
    // Before: "HTTP/1.1 400 ..." written after "first part;", inside the chunked body of /slow.
    expect(received()).not.toContain('400');
    expect(received().match(/HTTP\/1\.1 /g)).toEqual(['HTTP/1.1 ']);
    // Nothing was answered to the refused request, so no refusal is logged as answered.
    expect(log.lines.filter((line) => line.msg === 'request refused')).toEqual([]);
  });

  it('cuts the connection instead of answering ahead of an answer not started yet', async () => {
    const { socket, received, closed } = rawConnection();
    const before = arrived.length;
    socket.write('GET /later HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitFor(() => arrived.length > before, { what: 'the server to receive /later' });
    socket.write('NOT HTTP\r\n\r\n');
    await within(closed, { what: 'the connection to close', timeoutMs: 5_000 });
    // Before: the 400 came first, and a client reading in order took it for the answer to /later.
    expect(received()).toBe('');
  });
});
