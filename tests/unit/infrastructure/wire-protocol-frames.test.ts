import { BackendFrames, FrontendFrames } from '../../../src/infrastructure/database/embedded/wire-protocol-frames';

function typed(type: string, body: number[] | string): Buffer {
  const content = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body);
  const header = Buffer.alloc(5);
  header.write(type);
  header.writeInt32BE(4 + content.length, 1);
  return Buffer.concat([header, content]);
}

function untyped(code: number, body = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(8);
  header.writeInt32BE(8 + body.length, 0);
  header.writeInt32BE(code, 4);
  return Buffer.concat([header, body]);
}

/** `bytes` in pieces of `size`, as a socket may deliver them. */
function pieces(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

describe('BackendFrames', () => {
  const idleAfter = (bytes: Buffer, size: number) => {
    const frames = new BackendFrames();
    for (const piece of pieces(bytes, size)) frames.push(piece);
    return frames.endsIdle();
  };

  it.each([1, 2, 7, 100])('tells an answer ending in ReadyForQuery idle, in pieces of %i bytes', (size) => {
    const answer = Buffer.concat([
      typed('2', []),
      typed('D', [0, 1, 0, 0, 0, 1, 0x5a]),
      typed('C', 'SELECT 1\0'),
      typed('Z', 'I'),
    ]);
    expect(idleAfter(answer, size)).toBe(true);
  });

  it('tells an exchange under way: in a transaction block, after ParseComplete, or cut mid-message', () => {
    expect(idleAfter(Buffer.concat([typed('C', 'BEGIN\0'), typed('Z', 'T')]), 3)).toBe(false);
    expect(idleAfter(typed('1', []), 2)).toBe(false);
    expect(idleAfter(typed('Z', 'I').subarray(0, 5), 5)).toBe(false);
    // A DataRow whose last bytes look like ReadyForQuery is still a DataRow.
    expect(idleAfter(typed('D', [0, 1, 0, 0, 0, 6, 0x5a, 0, 0, 0, 5, 0x49]), 4)).toBe(false);
  });
});

describe('FrontendFrames', () => {
  it('reads negotiation, start-up and typed messages across any split', () => {
    const startup = untyped(196608, Buffer.from('user\0postgres\0\0'));
    const parse = typed('P', '\0SELECT 1\0\0\0');
    const sync = typed('S', []);
    const stream = Buffer.concat([untyped(80877103), startup, parse, sync]);
    for (const size of [1, 3, 8, stream.length]) {
      const seen: string[] = [];
      const frames = new FrontendFrames();
      for (const piece of pieces(stream, size)) {
        frames.push(piece, {
          negotiate: () => seen.push('N'),
          cancel: () => seen.push('cancel'),
          message: (message) => seen.push(Buffer.from(message).toString('hex')),
        });
      }
      expect(seen).toEqual(['N', startup.toString('hex'), parse.toString('hex'), sync.toString('hex')]);
    }
  });

  it('refuses a length shorter than a message can be, and an unknown protocol', () => {
    const on = { negotiate: () => undefined, cancel: () => undefined, message: () => undefined };
    const started = new FrontendFrames();
    started.push(untyped(196608, Buffer.from('\0')), on);
    const broken = Buffer.from([0x51, 0, 0, 0, 2]);
    expect(() => started.push(broken, on)).toThrow(/invalid message length/);
    expect(() => new FrontendFrames().push(untyped(12345), on)).toThrow(/unsupported protocol 12345/);
  });

  it("refuses lengths past PostgreSQL's own bounds before buffering them", () => {
    const on = { negotiate: () => undefined, cancel: () => undefined, message: () => undefined };
    const hugeStartup = Buffer.from([0, 0, 0x27, 0x11, 0, 3, 0, 0]); // 10,001 bytes declared
    expect(() => new FrontendFrames().push(hugeStartup, on)).toThrow(/invalid message length 10001/);
    const started = new FrontendFrames();
    started.push(untyped(196608, Buffer.from('\0')), on);
    expect(() => started.push(Buffer.from([0x51, 0x7f, 0xff, 0xff, 0xff]), on)).toThrow(/invalid message length/);
  });
});
