// The local receiver of the webhooks bench: an integrator's endpoint that answers every delivery
// with 204 at once, and keeps when each message first arrived and how often.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Arrival {
  /** The message's webhook-id. */
  readonly id: string;
  /** The delivered event's description (the anchor's, "Anchor set: …"), to match it to its write. */
  readonly description: string;
  /** Date.now() when its body was read. */
  readonly at: number;
}

export class WebhookReceiver {
  /** Each message's first arrival, by path (one path per endpoint of the bench), in arrival order. */
  private readonly firsts = new Map<string, Arrival[]>();
  private readonly seen = new Map<string, number>();
  private lastArrivalAt = 0;

  private readonly server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      this.take(request.url ?? '/', String(request.headers['webhook-id']), Buffer.concat(chunks).toString());
      response.writeHead(204).end();
    });
  });
  /** Where it listens, once started. */
  url = '';

  private constructor() {}

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    // As many deliveries at once as the service's workers make, and more.
    receiver.server.maxConnections = 1_000;
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.server.address() as AddressInfo;
    receiver.url = `http://127.0.0.1:${port}`;
    return receiver;
  }

  private take(path: string, id: string, body: string): void {
    const at = Date.now();
    this.lastArrivalAt = at;
    const count = (this.seen.get(id) ?? 0) + 1;
    this.seen.set(id, count);
    if (count > 1) return;
    const payload: unknown = JSON.parse(body);
    const description = String(
      (payload as { data?: { event?: { description?: unknown } } }).data?.event?.description ?? '',
    );
    const list = this.firsts.get(path) ?? [];
    list.push({ id, description, at });
    this.firsts.set(path, list);
  }

  /** The messages that arrived at `path`, each once, in the order they first came. */
  arrivals(path: string): readonly Arrival[] {
    return this.firsts.get(path) ?? [];
  }

  /** Arrivals of messages that had arrived before, at any path. */
  duplicates(): number {
    let extra = 0;
    for (const count of this.seen.values()) extra += count - 1;
    return extra;
  }

  /** Waits until `path` has `count` messages, or nothing arrived anywhere for `quietMs`, or `atMostMs` passed. */
  waitFor(path: string, count: number, atMostMs: number, quietMs = 60_000): Promise<boolean> {
    return this.waitUntil(() => this.arrivals(path).length >= count, atMostMs, quietMs);
  }

  /** Waits until a message of each description has arrived at `path`, with the same bounds. */
  waitForEach(path: string, descriptions: ReadonlySet<string>, atMostMs: number, quietMs = 60_000): Promise<boolean> {
    return this.waitUntil(
      () => {
        const arrived = new Set(this.arrivals(path).map((arrival) => arrival.description));
        return [...descriptions].every((description) => arrived.has(description));
      },
      atMostMs,
      quietMs,
    );
  }

  private async waitUntil(done: () => boolean, atMostMs: number, quietMs: number): Promise<boolean> {
    const start = Date.now();
    for (;;) {
      if (done()) return true;
      const now = Date.now();
      if (now - start > atMostMs || now - Math.max(this.lastArrivalAt, start) > quietMs) return false;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Waits until nothing has arrived for `quietMs`: the deliveries of a load have drained. */
  async waitQuiet(quietMs: number, atMostMs: number): Promise<void> {
    const start = Date.now();
    while (Date.now() - Math.max(this.lastArrivalAt, start) < quietMs && Date.now() - start < atMostMs)
      await new Promise((resolve) => setTimeout(resolve, 100));
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
