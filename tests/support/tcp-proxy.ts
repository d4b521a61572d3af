import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Cuts every connection and stops listening: to its clients, the database is gone. */
  stop(): Promise<void>;
  /** Listens again on the same port: the database is back. */
  start(): Promise<void>;
  /**
   * A silent network: connections stay open and new ones are accepted, but nothing is forwarded
   * either way, and no side hears of the other closing. Nothing errors; everything waits.
   * `'answers'`: only the database's answers are held; what clients send still reaches it.
   */
  freeze(held?: Held): void;
  /**
   * The network is back: what was held on a connection both sides kept open is delivered and
   * forwarding goes on. A connection either side closed while frozen is cut, its held bytes lost,
   * as across a real partition (the other side never heard the FIN).
   */
  thaw(): void;
  /** Connections the client still holds open that it sent bytes on while frozen (a statement never answered). */
  stalledOpen(): number;
  /** Settles once bytes containing `text` (a statement's text, say) have been passed on to the database. */
  delivered(text: string): Promise<void>;
  close(): Promise<void>;
}

/** What a freeze holds back: everything, or only the database's answers. */
export type Held = 'both' | 'answers';

/** Hears the bytes a link passes on to the database, with the end of the previous ones before them. */
type Delivered = (window: string) => void;

/** How much of the previous bytes a link keeps, so a text split across two chunks is still seen whole. */
const DELIVERED_OVERLAP = 1_024;

/** One client connection and its upstream, forwarded by hand so a freeze can hold bytes back. */
class Link {
  private upstream: Socket | null = null;
  private readonly held: { toUpstream: Buffer[]; toClient: Buffer[] } = { toUpstream: [], toClient: [] };
  private ended = false;
  /** The client sent bytes while frozen: a statement that gets no answer. */
  stalled = false;
  /** The end of what was passed on to the database. */
  private deliveredTail = '';

  constructor(
    readonly client: Socket,
    private readonly target: { host: string; port: number },
    private frozen: Held | null,
    private readonly sockets: Set<Socket>,
    private readonly delivered: Delivered,
  ) {
    this.track(client);
    client.on('data', (chunk: Buffer) => {
      if (this.frozen) this.stalled = true;
      if (this.frozen === 'both' || !this.upstream) this.held.toUpstream.push(chunk);
      else this.deliver(this.upstream, chunk);
    });
    client.on('close', () => this.closed());
    if (frozen !== 'both') this.connect();
  }

  get open(): boolean {
    return !this.ended;
  }

  freeze(held: Held): void {
    this.frozen = held;
    this.stalled = false;
  }

  thaw(): void {
    this.frozen = null;
    if (this.ended || this.client.destroyed || this.upstream?.destroyed) return this.cut();
    if (!this.upstream) return this.connect();
    for (const chunk of this.held.toUpstream.splice(0)) this.deliver(this.upstream, chunk);
    for (const chunk of this.held.toClient.splice(0)) this.client.write(chunk);
  }

  cut(): void {
    this.ended = true;
    this.client.destroy();
    this.upstream?.destroy();
  }

  private connect(): void {
    const upstream = createConnection(this.target);
    this.upstream = upstream;
    this.track(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (this.frozen) this.held.toClient.push(chunk);
      else this.client.write(chunk);
    });
    upstream.on('close', () => this.closed());
    for (const chunk of this.held.toUpstream.splice(0)) this.deliver(upstream, chunk);
  }

  private deliver(upstream: Socket, chunk: Buffer): void {
    upstream.write(chunk);
    // latin1: one character per byte, so no byte sequence is lost to decoding.
    const window = this.deliveredTail + chunk.toString('latin1');
    this.deliveredTail = window.slice(-DELIVERED_OVERLAP);
    this.delivered(window);
  }

  /** Either side closed: while frozen the other side does not hear of it until the thaw cuts both. */
  private closed(): void {
    if (this.frozen) {
      this.ended = true;
      return;
    }
    this.cut();
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }
}

/** A loopback TCP proxy in front of a database, so a test can take the database away and back, or freeze it. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const links = new Set<Link>();
  let server: Server | null = null;
  let port = 0;
  let frozen: Held | null = null;
  const awaited = new Set<{ text: string; settle: () => void }>();
  const heard: Delivered = (window) => {
    for (const each of awaited) {
      if (!window.includes(each.text)) continue;
      awaited.delete(each);
      each.settle();
    }
  };

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = createServer((client) => {
        const link = new Link(client, target, frozen, sockets, heard);
        links.add(link);
        client.on('close', () => {
          if (!frozen) links.delete(link);
        });
      });
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => {
        const address = next.address();
        port = typeof address === 'object' && address ? address.port : port;
        server = next;
        resolve();
      });
    });

  const stop = () =>
    new Promise<void>((resolve) => {
      frozen = null;
      for (const link of links) link.cut();
      links.clear();
      for (const socket of sockets) socket.destroy();
      if (!server) return resolve();
      server.close(() => resolve());
      server = null;
    });

  const freeze = (held: Held = 'both') => {
    frozen = held;
    for (const link of links) link.freeze(held);
  };

  const thaw = () => {
    frozen = null;
    for (const link of links) {
      link.thaw();
      if (!link.open) links.delete(link);
    }
  };

  const stalledOpen = () => [...links].filter((link) => link.stalled && !link.client.destroyed && link.open).length;

  await listen();
  return {
    get port() {
      return port;
    },
    stop,
    start: listen,
    freeze,
    thaw,
    stalledOpen,
    delivered: (text) =>
      new Promise<void>((settle) => {
        awaited.add({ text, settle });
      }),
    close: stop,
  };
}

/** A proxy in front of the database at `connectionString`, and the address that goes through it. */
export async function proxyInFrontOf(connectionString: string): Promise<{ proxy: TcpProxy; url: string }> {
  const url = new URL(connectionString);
  const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return { proxy, url: url.toString() };
}
