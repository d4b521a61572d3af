// Keeps a process's verified-key cache true to the database. The database announces every change
// of a key's validity with NOTIFY when it commits (trigger of migration
// 20261122050000_api_key_change_notifications); this hears it two ways:
// - every connection of the service's own pool LISTENs (`prepareConnection`, the pool's onConnect
//   hook): PostgreSQL hands a session its own notifications with the COMMIT's answer, so a change
//   this process makes is forgotten before the code that made it goes on. It is also the only way
//   on the embedded PGlite, whose one session answers notifications to the connection that
//   committed, never to a second one.
// - one dedicated connection outside the pool (`start`, PostgreSQL servers only) hears every other
//   process's changes, whether or not the pool holds a connection at the time. While it is not
//   subscribed (not yet, or lost), the cache is suspended: every request reads the database.
import { EventEmitter } from 'node:events';
import { Client, type ClientBase, type Notification } from 'pg';

export const KEY_CHANGE_CHANNEL = 'api_key_changes';
/** The payload that stands for every key (the table was emptied). */
export const EVERY_KEY = '*';

/** What the notifications act on: the cache of verified keys. */
export interface KeyChangeTarget {
  forget(keyId: string): void;
  forgetAll(): void;
  suspend(): void;
  resume(): void;
}

export interface KeyChangeListenerOptions {
  /** Waited between a lost dedicated connection and the next attempt; default 0.25 s doubling up to 5 s. */
  readonly pauseBeforeReconnect?: (attempt: number) => Promise<void>;
  /**
   * A connection that died silently (no FIN: a network partition) raises no error by itself: a
   * query this often, answered within `heartbeatTimeoutMs`, proves it alive. Defaults 10 s and 5 s.
   */
  readonly heartbeatMs?: number;
  readonly heartbeatTimeoutMs?: number;
}

export type KeyChangeListenerEvents = {
  /** The dedicated connection is listening; its backend's pid (for pg_terminate_backend in tests). */
  subscribed: [backendPid: number];
  /** The dedicated connection was lost: the cache is suspended until `subscribed`. */
  lost: [error: Error];
  /** A change was heard and forgotten, on any connection: a key id, or EVERY_KEY. */
  change: [keyId: string];
};

const CONNECT_TIMEOUT_MS = 5_000;
const LISTEN = `LISTEN ${KEY_CHANGE_CHANNEL}`;

export class KeyChangeListener extends EventEmitter<KeyChangeListenerEvents> {
  private connectionString: string | null = null;
  private client: Client | null = null;
  private subscribedPid: number | null = null;
  private attempts = 0;
  private closed = false;
  private beating = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly target: KeyChangeTarget,
    private readonly options: KeyChangeListenerOptions = {},
  ) {
    super();
  }

  /** The backend of the dedicated connection while it listens (pg_stat_activity shows it), else null. */
  get backendPid(): number | null {
    return this.subscribedPid;
  }

  /** For the pool's `onConnect`: the connection hears changes, its own commits' first of all. */
  readonly prepareConnection = async (client: ClientBase): Promise<void> => {
    client.on('notification', this.heard);
    await client.query(LISTEN);
  };

  /** Opens the dedicated connection (and keeps reopening it); the cache is trusted once it listens. */
  start(connectionString: string): void {
    if (this.connectionString !== null) throw new Error('KeyChangeListener already started');
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
    if (notification.channel !== KEY_CHANGE_CHANNEL) return;
    const keyId = notification.payload ?? EVERY_KEY;
    if (keyId === EVERY_KEY) this.target.forgetAll();
    else this.target.forget(keyId);
    this.emit('change', keyId);
  };

  private async connect(): Promise<void> {
    if (this.closed || this.connectionString === null) return;
    const client = new Client({
      connectionString: this.connectionString,
      application_name: 'time-navigation api key changes',
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      query_timeout: this.options.heartbeatTimeoutMs ?? 5_000,
    });
    this.client = client;
    client.on('error', (error) => this.lose(client, error));
    client.on('end', () => this.lose(client, new Error('the connection listening for API key changes ended')));
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
    // Changes made while nobody listened are unknown: resume() starts from an empty cache.
    this.target.resume();
    this.heartbeat = setInterval(() => void this.beat(client), this.options.heartbeatMs ?? 10_000);
    this.heartbeat.unref();
    this.emit('subscribed', backendPid);
  }

  private lose(client: Client, error: Error): void {
    if (this.client !== client) return; // already handled, or closed
    this.client = null;
    this.subscribedPid = null;
    // First, synchronously: from here on no request trusts what the cache remembers.
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
      this.reconnectTimer = setTimeout(resolve, Math.min(250 * 2 ** attempt, 5_000));
      this.reconnectTimer.unref();
    });
  }
}
