// A tripwire for the tests of where deliveries may go: any connection this process starts to an
// address off the loopback is refused before a packet leaves, and noted, so that a sender that
// failed to refuse a private address fails its test instead of reaching the network.
import { isIP, Socket } from 'node:net';

export interface LoopbackOnly {
  /** The addresses off the loopback that a connection was tried to, refused. */
  readonly strayed: readonly string[];
  restore(): void;
}

const isLoopback = (address: string) => address === '::1' || address.startsWith('127.');

export function loopbackOnly(): LoopbackOnly {
  const strayed: string[] = [];
  const real = Socket.prototype.connect;
  const guarded = jest.spyOn(Socket.prototype, 'connect').mockImplementation(function guard(
    this: Socket,
    ...args: unknown[]
  ): Socket {
    const host = hostOf(args[0], args[1]);
    if (host === undefined || isIP(host) === 0 || isLoopback(host)) return Reflect.apply(real, this, args) as Socket;
    strayed.push(host);
    const refused = Object.assign(new Error(`connection to ${host} refused by the test`), { code: 'ECONNREFUSED' });
    process.nextTick(() => this.destroy(refused));
    return this;
  });
  return { strayed, restore: () => guarded.mockRestore() };
}

/** The host a call names: `connect(options)`, `connect(port, host)`, or Node's `[options, callback]`. */
function hostOf(first: unknown, second: unknown): string | undefined {
  const options: unknown = Array.isArray(first) ? first[0] : first;
  if (typeof options === 'object' && options !== null && 'host' in options && typeof options.host === 'string')
    return options.host;
  return typeof second === 'string' ? second : undefined;
}
