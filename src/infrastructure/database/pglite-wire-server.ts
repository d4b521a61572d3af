// PGlite served over the PostgreSQL wire protocol to several client connections at once.
//
// PGlite is ONE backend, so the connections share one session and take turns, message by message.
// A connection keeps the session from one of its messages until the backend is idle again
// (ReadyForQuery with status 'I'): through an extended-protocol query (Parse ... Sync, whose
// unnamed statement and portal another connection's Parse or Query would replace, answering
// "26000 unnamed prepared statement does not exist") and through a transaction block. While it
// keeps it, the other connections' messages wait. @electric-sql/pglite-socket 0.2.17 kept the
// session only during transaction blocks (electric-sql/pglite issue #1046), which broke Prisma
// Studio: postgres.js sends Parse/Describe/Flush, waits for the answer, then Bind/Execute/Sync.
import net from 'node:net';
import type { PGlite } from './pglite-module';

const SSL_REQUEST = 80877103;
const GSS_ENCRYPTION_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;
const TERMINATE = 0x58; // 'X'
const READY_FOR_QUERY = 0x5a; // 'Z'
const IDLE = 0x49; // 'I'
/** The messages that return a connection's session to idle, sent for one that left in the middle. */
const SYNC = Buffer.from([0x53, 0, 0, 0, 4]);
const ROLLBACK = queryMessage('ROLLBACK');

export interface PgliteWireServerOptions {
  readonly db: PGlite;
  readonly host: string;
  /** 0: any free port. */
  readonly port: number;
  /** Connections beyond this are refused with PostgreSQL's "too many clients" (53300). */
  readonly maxConnections: number;
}

interface Turn {
  readonly client: Client;
  readonly message: Uint8Array;
}

interface Client {
  readonly socket: net.Socket;
  closed: boolean;
  /** Sync and ROLLBACK were queued for it after it left mid-exchange. */
  recovering: boolean;
}

export class PgliteWireServer {
  private readonly server = net.createServer((socket) => this.accept(socket));
  private readonly clients = new Set<Client>();
  private readonly turns: Turn[] = [];
  /** The client whose exchange is under way; null while the backend is idle. */
  private holder: Client | null = null;
  private running: Promise<void> | null = null;
  private stopping = false;

  constructor(private readonly options: PgliteWireServerOptions) {}

  /** Listens; resolves with "host:port". */
  async start(): Promise<string> {
    await this.options.db.waitReady;
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('the PGlite server has no TCP address');
    return `${this.options.host}:${address.port}`;
  }

  /** Stops accepting, drops every connection and waits for the message PGlite is running. */
  async stop(): Promise<void> {
    this.stopping = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const client of this.clients) client.socket.destroy();
    this.turns.length = 0;
    await closed;
    await this.running;
  }

  private accept(socket: net.Socket): void {
    socket.setNoDelay(true);
    if (this.stopping || this.clients.size >= this.options.maxConnections) {
      // Closed once written, whether or not the client closes its side: stop() waits for every socket.
      socket.end(errorResponse('FATAL', '53300', 'sorry, too many clients already'), () => socket.destroy());
      return;
    }
    const client: Client = { socket, closed: false, recovering: false };
    this.clients.add(client);
    const frames = new FrontendFrames();
    const onData = (data: Buffer): void => {
      try {
        frames.push(data, {
          negotiate: () => socket.write('N'),
          // PGlite has no second backend to signal; PostgreSQL, too, closes a cancel connection.
          cancel: () => socket.destroy(),
          message: (message) => this.submit(client, message),
        });
      } catch (error) {
        socket.off('data', onData);
        socket.end(errorResponse('FATAL', '08P01', error instanceof Error ? error.message : String(error)), () => socket.destroy());
      }
    };
    socket.on('data', onData);
    // A reset or broken socket ends the connection like a close; leave() recovers the session.
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.leave(client));
  }

  private submit(client: Client, message: Uint8Array): void {
    if (this.stopping || client.closed) return;
    if (message[0] === TERMINATE) {
      client.socket.end();
      return;
    }
    this.turns.push({ client, message });
    this.run();
  }

  private leave(client: Client): void {
    client.closed = true;
    this.clients.delete(client);
    for (let i = this.turns.length - 1; i >= 0; i -= 1) if (this.turns[i]?.client === client) this.turns.splice(i, 1);
    this.release(client);
  }

  /** A client that left in the middle of an exchange: end its query and transaction for the others. */
  private release(client: Client): void {
    if (this.holder !== client || this.stopping) return;
    if (client.recovering) {
      // Sync and ROLLBACK did not bring the backend back to idle: hand it on rather than wait for ever.
      this.holder = null;
    } else {
      client.recovering = true;
      this.turns.unshift({ client, message: SYNC }, { client, message: ROLLBACK });
    }
    this.run();
  }

  private run(): void {
    this.running ??= this.drain().finally(() => {
      this.running = null;
    });
  }

  private async drain(): Promise<void> {
    for (;;) {
      const index = this.holder ? this.turns.findIndex((turn) => turn.client === this.holder) : 0;
      const turn = index < 0 ? undefined : this.turns.splice(index, 1)[0];
      if (!turn) return;
      await this.take(turn);
    }
  }

  private async take({ client, message }: Turn): Promise<void> {
    const answer = new BackendFrames();
    try {
      await this.options.db.runExclusive(() =>
        this.options.db.execProtocolRawStream(message, {
          onRawData: (data) => {
            answer.push(data);
            if (!client.closed) client.socket.write(Buffer.from(data));
          },
        }),
      );
    } catch (error) {
      // PGlite itself failed, not a statement (those are answered as ErrorResponse).
      client.socket.destroy(error instanceof Error ? error : new Error(String(error)));
    }
    this.holder = answer.endsIdle() ? null : client;
    if (client.closed) this.release(client);
  }
}

/** Splits what a client sends into messages: the untyped start-up ones first, then typed ones. */
class FrontendFrames {
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
class BackendFrames {
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

function queryMessage(sql: string): Buffer {
  const text = Buffer.from(`${sql}\0`);
  const header = Buffer.alloc(5);
  header.write('Q');
  header.writeInt32BE(4 + text.length, 1);
  return Buffer.concat([header, text]);
}

function errorResponse(severity: string, code: string, message: string): Buffer {
  const fields = Buffer.from(`S${severity}\0V${severity}\0C${code}\0M${message}\0\0`);
  const header = Buffer.alloc(5);
  header.write('E');
  header.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([header, fields]);
}
