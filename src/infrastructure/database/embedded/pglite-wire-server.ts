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
//
// Every connection must give the server's password first (PostgreSQL's password authentication,
// sent in clear on the loopback interface, which only root can read): PGlite itself accepts any
// user as its superuser, and the port is open to every local user.
import { createHash, timingSafeEqual } from 'node:crypto';
import net from 'node:net';
import type { PGlite } from './pglite-module';
import {
  BackendFrames,
  errorResponse,
  FrontendFrames,
  passwordOf,
  passwordRequest,
  queryMessage,
} from './wire-protocol-frames';

const TERMINATE = 0x58; // 'X'
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
  /** What every connection must give before its start-up message reaches PGlite. */
  readonly password: string;
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
    const refuse = (code: string, message: string): void => {
      socket.off('data', onData);
      socket.end(errorResponse('FATAL', code, message), () => socket.destroy());
    };
    // The start-up message waits here until the password has been given.
    let startup: Uint8Array | null = null;
    let authenticated = false;
    const onMessage = (message: Uint8Array): void => {
      if (authenticated) return this.submit(client, message);
      if (startup === null) {
        startup = message;
        socket.write(passwordRequest());
        return;
      }
      const given = passwordOf(message);
      if (given === null || !this.isPassword(given))
        return refuse('28P01', 'password authentication failed: the password is in <DATA_DIR>/connection-url');
      authenticated = true;
      this.submit(client, startup);
    };
    const onData = (data: Buffer): void => {
      try {
        frames.push(data, {
          negotiate: () => socket.write('N'),
          // PGlite has no second backend to signal; PostgreSQL, too, closes a cancel connection.
          cancel: () => socket.destroy(),
          message: onMessage,
        });
      } catch (error) {
        refuse('08P01', error instanceof Error ? error.message : String(error));
      }
    };
    socket.on('data', onData);
    // A reset or broken socket ends the connection like a close; leave() recovers the session.
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.leave(client));
  }

  /** Compared by their digests, in constant time: how long it takes says nothing of the password. */
  private isPassword(given: Buffer): boolean {
    const digest = (value: Buffer | string) => createHash('sha256').update(value).digest();
    return timingSafeEqual(digest(given), digest(this.options.password));
  }

  private submit(client: Client, message: Uint8Array): void {
    if (this.stopping || client.closed) return;
    if (message[0] === TERMINATE) {
      // Closed for good, as PostgreSQL does: a peer that keeps its end open must not keep the session.
      client.closed = true;
      client.socket.end(() => client.socket.destroy());
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
