// The PostgreSQL wire protocol, as much of it as the embedded server reads and writes
// (pglite-wire-server.ts): message framing both ways, and the few messages it writes itself.

const SSL_REQUEST = 80877103;
const GSS_ENCRYPTION_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;
const READY_FOR_QUERY = 0x5a; // 'Z'
const IDLE = 0x49; // 'I'
const MAX_STARTUP = 10_000;
const MAX_MESSAGE = 0x3fffffff;

/** Splits what a client sends into messages: the untyped start-up ones first, then typed ones. */
export class FrontendFrames {
  private buffered: Buffer = Buffer.alloc(0);
  private started = false;

  push(data: Buffer, on: { negotiate(): void; cancel(): void; message(message: Uint8Array): void }): void {
    this.buffered = this.buffered.length === 0 ? data : Buffer.concat([this.buffered, data]);
    for (;;) {
      const declared = this.read(this.started ? 1 : 0);
      if (declared === null) return;
      // A typed message's length leaves out its type byte.
      const length = this.started ? declared + 1 : declared;
      if (length < (this.started ? 5 : 8)) throw new Error(`invalid message length ${length}`);
      // PostgreSQL's own bounds: a start-up packet of at most 10,000 bytes, a message under 1 GiB.
      if (length > (this.started ? MAX_MESSAGE : MAX_STARTUP)) throw new Error(`invalid message length ${length}`);
      if (this.buffered.length < length) return;
      const message = this.buffered.subarray(0, length);
      this.buffered = this.buffered.subarray(length);
      if (this.started) {
        on.message(message);
        continue;
      }
      const code = message.readInt32BE(4);
      if (code === SSL_REQUEST || code === GSS_ENCRYPTION_REQUEST) on.negotiate();
      else if (code === CANCEL_REQUEST) return on.cancel();
      else if (code === PROTOCOL_3) {
        this.started = true;
        on.message(message);
      } else throw new Error(`unsupported protocol ${code}`);
    }
  }

  /** The int32 length at `offset`; null until it has arrived. */
  private read(offset: number): number | null {
    return this.buffered.length < offset + 4 ? null : this.buffered.readInt32BE(offset);
  }
}

/** Follows the backend's messages across chunks, to tell whether the last one said "idle". */
export class BackendFrames {
  private header: Buffer = Buffer.alloc(0);
  private bodyLeft = 0;
  private type = 0;
  private status = 0;

  push(data: Uint8Array): void {
    let at = 0;
    while (at < data.length) {
      if (this.bodyLeft > 0) {
        if (this.type === READY_FOR_QUERY) this.status = data[at] ?? 0;
        const taken = Math.min(this.bodyLeft, data.length - at);
        this.bodyLeft -= taken;
        at += taken;
        continue;
      }
      const taken = Math.min(5 - this.header.length, data.length - at);
      this.header = Buffer.concat([this.header, data.subarray(at, at + taken)]);
      at += taken;
      if (this.header.length === 5) {
        this.type = this.header[0] ?? 0;
        this.bodyLeft = this.header.readInt32BE(1) - 4;
        this.status = 0;
        this.header = Buffer.alloc(0);
      }
    }
  }

  endsIdle(): boolean {
    return this.type === READY_FOR_QUERY && this.status === IDLE && this.bodyLeft === 0 && this.header.length === 0;
  }
}

export function queryMessage(sql: string): Buffer {
  const text = Buffer.from(`${sql}\0`);
  const header = Buffer.alloc(5);
  header.write('Q');
  header.writeInt32BE(4 + text.length, 1);
  return Buffer.concat([header, text]);
}

/** AuthenticationCleartextPassword: the server asks for the password. */
export function passwordRequest(): Buffer {
  return Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]);
}

/** The password of a PasswordMessage ('p'), or null when the message is not one. */
export function passwordOf(message: Uint8Array): Buffer | null {
  if (message[0] !== 0x70 || message.length < 6 || message[message.length - 1] !== 0) return null;
  return Buffer.from(message.subarray(5, message.length - 1));
}

export function errorResponse(severity: string, code: string, message: string): Buffer {
  const fields = Buffer.from(`S${severity}\0V${severity}\0C${code}\0M${message}\0\0`);
  const header = Buffer.alloc(5);
  header.write('E');
  header.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([header, fields]);
}
