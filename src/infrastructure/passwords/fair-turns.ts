/**
 * The two lanes of waiting password work: a sign-in or password change from a browser holding the
 * account's device cookie (`known_device`), served first, and the rest (`in_turn`).
 */
export type Lane = 'known_device' | 'in_turn';

/** One client address: its work running, its work waiting in each lane, and when it last started one. */
interface Client<T> {
  running: number;
  lastStarted: number;
  readonly waiting: Record<Lane, T[]>;
}

/** What became of work offered to wait: it waits, maybe in place of another address's, or it is refused. */
export type Admission<T> = { readonly admitted: true; readonly displaced: T | null } | { readonly admitted: false };

/**
 * The order in which the password work's pool starts the work that waits (docs/decisions.md,
 * "Password work"). Each lane is served by client address in turn: the next work is that of the
 * address that started one least lately (one new to the pool first), its oldest, so one address's
 * many attempts wait behind each other and not in front of another's. The `known_device` lane
 * is served before the other; an attacker's own accounts give its browsers cookies too, so that
 * lane is taken in turn by address as well.
 *
 * Each lane holds at most `capacity` waiting. When it is full, new work of an address that holds
 * fewer than the address holding most takes the place of that address's newest (which is
 * refused): one address cannot fill the queue and keep the others out. Otherwise it is refused.
 * Work that never waited (a thread was free) counts as its address's turn.
 */
export class FairTurns<T> {
  private readonly clients = new Map<string, Client<T>>();
  private readonly waitingIn: Record<Lane, number> = { known_device: 0, in_turn: 0 };
  private starts = 0;

  constructor(private readonly capacity: number) {}

  /** Work waiting, both lanes. */
  get size(): number {
    return this.waitingIn.known_device + this.waitingIn.in_turn;
  }

  waitingInLane(lane: Lane): number {
    return this.waitingIn[lane];
  }

  /** Whether the address has work running or waiting: new work of it waits behind its own. */
  busy(address: string): boolean {
    return this.clients.has(address);
  }

  /** Work of the address starts now, without waiting. */
  started(address: string): void {
    const client = this.clientOf(address);
    client.running += 1;
    client.lastStarted = ++this.starts;
  }

  /** Work of the address that started has ended. */
  finished(address: string): void {
    const client = this.clients.get(address);
    if (!client) return;
    client.running -= 1;
    this.forgetIfIdle(address, client);
  }

  offer(item: T, address: string, lane: Lane): Admission<T> {
    let displaced: T | null = null;
    if (this.waitingIn[lane] >= this.capacity) {
      displaced = this.displaceFor(address, lane);
      if (displaced === null) return { admitted: false };
    }
    this.clientOf(address).waiting[lane].push(item);
    this.waitingIn[lane] += 1;
    return { admitted: true, displaced };
  }

  /** The next work to start, counted as started; null when none waits. */
  next(): { readonly item: T; readonly address: string } | null {
    const lane: Lane = this.waitingIn.known_device > 0 ? 'known_device' : 'in_turn';
    let chosen: [string, Client<T>] | null = null;
    for (const entry of this.clients) {
      if (entry[1].waiting[lane].length > 0 && (!chosen || entry[1].lastStarted < chosen[1].lastStarted))
        chosen = entry;
    }
    if (!chosen) return null;
    const [address, client] = chosen;
    const item = client.waiting[lane].shift();
    if (item === undefined) return null;
    this.waitingIn[lane] -= 1;
    this.started(address);
    return { item, address };
  }

  /** Takes out work of the address that still waits in the lane (its client went away); false when it started. */
  withdraw(item: T, address: string, lane: Lane): boolean {
    const client = this.clients.get(address);
    const index = client?.waiting[lane].indexOf(item) ?? -1;
    if (!client || index < 0) return false;
    client.waiting[lane].splice(index, 1);
    this.waitingIn[lane] -= 1;
    this.forgetIfIdle(address, client);
    return true;
  }

  /** Everything waiting, taken out (the pool closing). */
  drain(): T[] {
    const items = [...this.clients.values()].flatMap((client) => [
      ...client.waiting.known_device.splice(0),
      ...client.waiting.in_turn.splice(0),
    ]);
    for (const [address, client] of this.clients) this.forgetIfIdle(address, client);
    this.waitingIn.known_device = 0;
    this.waitingIn.in_turn = 0;
    return items;
  }

  /** The newest waiting work of the address holding most in the lane, if it holds more than `address` would. */
  private displaceFor(address: string, lane: Lane): T | null {
    const own = this.clients.get(address)?.waiting[lane].length ?? 0;
    let holder: [string, Client<T>] | null = null;
    for (const entry of this.clients) {
      if (!holder || entry[1].waiting[lane].length > holder[1].waiting[lane].length) holder = entry;
    }
    if (!holder || holder[1].waiting[lane].length <= own + 1) return null;
    const displaced = holder[1].waiting[lane].pop();
    if (displaced === undefined) return null;
    this.waitingIn[lane] -= 1;
    this.forgetIfIdle(holder[0], holder[1]);
    return displaced;
  }

  private clientOf(address: string): Client<T> {
    let client = this.clients.get(address);
    if (!client) {
      client = { running: 0, lastStarted: 0, waiting: { known_device: [], in_turn: [] } };
      this.clients.set(address, client);
    }
    return client;
  }

  /** An address with nothing running or waiting is forgotten: it is new again when it comes back. */
  private forgetIfIdle(address: string, client: Client<T>): void {
    if (client.running <= 0 && client.waiting.known_device.length === 0 && client.waiting.in_turn.length === 0)
      this.clients.delete(address);
  }
}
