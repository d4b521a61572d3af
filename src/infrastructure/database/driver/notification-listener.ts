// Hears one PostgreSQL notification channel for a process. The database announces changes with
// NOTIFY when they commit; this hears them two ways:
// - every connection of the service's own pool LISTENs (`prepareConnection`, the pool's onConnect
//   hook): PostgreSQL hands a session its own notifications with the COMMIT's answer, so a change
//   this process makes is heard before the code that made it goes on. It is also the only way on
//   the embedded PGlite, whose one session answers notifications to the connection that
//   committed, never to a second one.
// - one dedicated connection outside the pool (`start`, PostgreSQL servers only) hears every other
//   process's changes, whether or not the pool holds a connection at the time. While it is not
//   subscribed (not yet, or lost), the target is suspended: it cannot rely on having heard all.
import { EventEmitter } from 'node:events';
import { Client, type ClientBase, type Notification } from 'pg';

/** What the notifications of a channel act on. */
export interface ChannelTarget {
  /** A notification's payload ('' when it had none). */
  heard(payload: string): void;
  /** The dedicated connection is not listening: notifications may be missed from now on. */
  suspend(): void;
  /** It listens again (or for the first time): whatever was announced before is unknown. */
  resume(): void;
}

export interface NotificationListenerOptions {
  /** Waited between a lost dedicated connection and the next attempt; default reconnectDelayMs's. */
  readonly pauseBeforeReconnect?: (attempt: number) => Promise<void>;
  /** The default pause's random source, in [0, 1): Math.random unless a test fixes it. */
  readonly random?: () => number;
  /**
   * A connection that died silently (no FIN: a network partition) raises no error by itself: a
   * query this often, answered within `heartbeatTimeoutMs`, proves it alive. Defaults 10 s and 5 s.
   */
  readonly heartbeatMs?: number;
  readonly heartbeatTimeoutMs?: number;
}

export type NotificationListenerEvents = {
  /** The dedicated connection is listening; its backend's pid (for pg_terminate_backend in tests). */
  subscribed: [backendPid: number];
  /** The dedicated connection was lost: the target is suspended until `subscribed`. */
  lost: [error: Error];
  /** A notification was heard and handed to the target, on any connection: its payload. */
  heard: [payload: string];
};

const CONNECT_TIMEOUT_MS = 5_000;
const FIRST_RECONNECT_MS = 250;
const LAST_RECONNECT_MS = 5_000;

/**
 * The pause before reconnection attempt `attempt` (0 the first): a ceiling of 0.25 s doubling up to
 * 5 s, and a random point of its upper half ("equal jitter"). After a failover every process of every
 * instance loses its listening connections at once: without the jitter they would all knock on the
 * new primary at the same moments, over and over; with it they spread over half of each pause, and
 * still never retry sooner than half of it, however the draw falls.
 */
export function reconnectDelayMs(attempt: number, random: () => number): number {
  const ceiling = Math.min(FIRST_RECONNECT_MS * 2 ** attempt, LAST_RECONNECT_MS);
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

export class NotificationListener extends EventEmitter<NotificationListenerEvents> {
  private connectionString: string | null = null;
  private client: Client | null = null;
  private subscribedPid: number | null = null;
  private attempts = 0;
  private closed = false;
  private beating = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;

  private readonly listen: string;

  constructor(
    private readonly channel: { readonly name: string; readonly purpose: string },
    private readonly target: ChannelTarget,
    private readonly options: NotificationListenerOptions = {},
  ) {
    super();
    this.listen = `LISTEN ${channel.name}`;
  }

  /** The backend of the dedicated connection while it listens (pg_stat_activity shows it), else null. */
  get backendPid(): number | null {
    return this.subscribedPid;
  }

  /** For the pool's `onConnect`: the connection hears the channel, its own commits' first of all. */
  readonly prepareConnection = async (client: ClientBase): Promise<void> => {
    client.on('notification', this.heard);
    await client.query(this.listen);
  };

  /** Opens the dedicated connection (and keeps reopening it); the target resumes once it listens. */
  start(connectionString: string): void {
    if (this.connectionString !== null) throw new Error(`the listener of ${this.channel.name} is already started`);
    this.connectionString = connectionString;
    void this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = null;
    this.subscribedPid = null;
    this.target.suspend();
    await client?.end().catch(() => undefined);
  }

  private readonly heard = (notification: Notification): void => {
    if (notification.channel !== this.channel.name) return;
    const payload = notification.payload ?? '';
    this.target.heard(payload);
    this.emit('heard', payload);
  };

  private async connect(): Promise<void> {
    if (this.closed || this.connectionString === null) return;
    const client = new Client({
      connectionString: this.connectionString,
      application_name: `time-navigation ${this.channel.purpose}`,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      query_timeout: this.options.heartbeatTimeoutMs ?? 5_000,
    });
    this.client = client;
    client.on('error', (error) => this.lose(client, error));
    client.on('end', () => this.lose(client, new Error(`the connection listening for ${this.channel.purpose} ended`)));
    let backendPid: number;
    try {
      await client.connect();
      await this.prepareConnection(client);
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      backendPid = rows[0]?.pid ?? 0;
    } catch (error) {
      this.lose(client, error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (this.client !== client) return; // lost or closed while subscribing
    this.attempts = 0;
    this.subscribedPid = backendPid;
    // What was announced while nobody listened is unknown: the target's resume() starts afresh.
    this.target.resume();
    this.heartbeat = setInterval(() => void this.beat(client), this.options.heartbeatMs ?? 10_000);
    this.heartbeat.unref();
    this.emit('subscribed', backendPid);
  }

  private lose(client: Client, error: Error): void {
    if (this.client !== client) return; // already handled, or closed
    this.client = null;
    this.subscribedPid = null;
    // First, synchronously: from here on nothing relies on having heard every notification.
    this.target.suspend();
    clearInterval(this.heartbeat);
    client.off('notification', this.heard);
    void client.end().catch(() => undefined);
    this.emit('lost', error);
    const attempt = this.attempts++;
    const again = (): Promise<void> => this.connect();
    void this.pause(attempt).then(again, again);
  }

  private async beat(client: Client): Promise<void> {
    if (this.beating) return; // the previous one is still waiting for its answer (or its timeout)
    this.beating = true;
    try {
      await client.query('SELECT 1');
    } catch (error) {
      this.lose(client, error instanceof Error ? error : new Error(String(error)));
    } finally {
      this.beating = false;
    }
  }

  private pause(attempt: number): Promise<void> {
    if (this.options.pauseBeforeReconnect) return this.options.pauseBeforeReconnect(attempt);
    return new Promise((resolve) => {
      this.reconnectTimer = setTimeout(resolve, reconnectDelayMs(attempt, this.options.random ?? Math.random));
      this.reconnectTimer.unref();
    });
  }
}
