// The embedded database's wire server: several connections on PGlite's one session.
import { connect, Socket } from 'node:net';
import { Client } from 'pg';
import { loadPglite, type PGlite } from '../../../src/infrastructure/database/embedded/pglite-module';
import { PgliteWireServer } from '../../../src/infrastructure/database/embedded/pglite-wire-server';

jest.setTimeout(60_000);

const PASSWORD = 'the-server-password';

describe('PgliteWireServer', () => {
  let db: PGlite;
  let server: PgliteWireServer;
  let url: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    const { PGlite } = await loadPglite();
    db = new PGlite('memory://');
    server = new PgliteWireServer({ db, host: '127.0.0.1', port: 0, maxConnections: 4, password: PASSWORD });
    url = `postgresql://postgres:${PASSWORD}@${await server.start()}/postgres?sslmode=disable`;
    const setup = await connected();
    await setup.query('CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)');
    await setup.end();
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.end()));
  });

  afterAll(async () => {
    await server.stop();
    await db.close();
  });

  async function connected(): Promise<Client> {
    const client = new Client({ connectionString: url });
    await client.connect();
    clients.push(client);
    return client;
  }

  it('refuses a connection without the password, whatever user it names, before PGlite sees it', async () => {
    const { host } = new URL(url);
    for (const wrong of [`postgres:guess@${host}`, `postgres@${host}`, `nobody:${PASSWORD.slice(1)}@${host}`]) {
      const client = new Client({
        connectionString: `postgresql://${wrong}/postgres?sslmode=disable`,
        password: undefined,
      });
      const refused = await client.connect().then(
        () => null,
        (error: unknown) => error,
      );
      // pg refuses itself to answer a password request without a password; the server refuses a wrong one.
      expect(refused).toEqual(expect.objectContaining({ message: expect.stringMatching(/password/) }));
      if (wrong.includes(':')) expect(refused).toMatchObject({ code: '28P01' });
      await client.end().catch(() => undefined);
    }
    expect((await (await connected()).query('SELECT current_user AS who')).rows).toEqual([{ who: 'postgres' }]);
  });

  it("keeps another connection's query out of an extended-protocol exchange until its Sync", async () => {
    const raw = await rawSession(url);
    const b = await connected();
    // postgres.js's way (Prisma Studio's): Parse, Describe, Flush; wait for the parameter types.
    raw.socket.write(
      Buffer.concat([
        typed('P', Buffer.from('\0SELECT $1::int AS n\0\0\0')),
        typed('D', Buffer.from('S\0')),
        typed('H', Buffer.alloc(0)),
      ]),
    );
    await raw.received('t');
    const other = b.query("SELECT 'other' AS x");
    // Then Bind (unnamed portal and statement, no format codes, one text parameter '7'), Execute, Sync.
    const bind = Buffer.from([0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0x37, 0, 0]);
    raw.socket.write(
      Buffer.concat([typed('B', bind), typed('E', Buffer.from([0, 0, 0, 0, 0])), typed('S', Buffer.alloc(0))]),
    );
    await raw.received('Z');
    expect(raw.types()).toBe('1tT2DCZ');
    expect(raw.rows()).toEqual(['7']);
    expect((await other).rows).toEqual([{ x: 'other' }]);
    raw.socket.destroy();
  });

  it("keeps another connection's statements out of a transaction block, which sees only its own work", async () => {
    const [a, b] = await Promise.all([connected(), connected()]);
    await a.query('BEGIN');
    await a.query('INSERT INTO notes VALUES (1, $1)', ['in a transaction']);
    const other = b.query('INSERT INTO notes VALUES (2, $1)', ['waits for COMMIT']);
    expect((await a.query('SELECT id FROM notes ORDER BY id')).rows).toEqual([{ id: 1 }]);
    await a.query('COMMIT');
    await other;
    expect((await b.query('SELECT id FROM notes ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }]);
    await b.query('DELETE FROM notes');
  });

  it('rolls back the transaction of a connection that drops, and serves the others', async () => {
    const socket = new Socket();
    const a = new Client({ connectionString: url, stream: () => socket });
    await a.connect();
    const b = await connected();
    await a.query('BEGIN');
    await a.query('INSERT INTO notes VALUES (3, $1)', ['never committed']);
    const waiting = b.query('SELECT count(*)::int AS n FROM notes');
    a.on('error', () => undefined);
    // Destroys the socket, as a crash or a lost network would: no Terminate, no ROLLBACK.
    socket.destroy();
    expect((await waiting).rows).toEqual([{ n: 0 }]);
    expect((await b.query('SELECT $1::text AS alive', ['yes'])).rows).toEqual([{ alive: 'yes' }]);
  });

  it('ends the half-sent query of a connection that drops mid-exchange, and serves the others', async () => {
    const raw = await rawSession(url);
    const b = await connected();
    // Parse, then Flush: the exchange stays open, waiting for Bind ... Sync that never come.
    raw.socket.write(Buffer.concat([typed('P', Buffer.from('\0SELECT 1/0\0\0\0')), typed('H', Buffer.alloc(0))]));
    await raw.received('1');
    const answer = b.query('SELECT $1::int AS n', [7]);
    raw.socket.destroy();
    expect((await answer).rows).toEqual([{ n: 7 }]);
  });

  it('closes a connection that sends Terminate mid-exchange, even if its peer keeps its end open', async () => {
    const raw = await rawSession(url);
    const b = await connected();
    raw.socket.write(typed('Q', Buffer.from('BEGIN\0')));
    await raw.received('Z');
    // Terminate inside the transaction, and this end stays open (allowHalfOpen): the server must
    // still end the connection and hand the session on, or b waits for ever.
    raw.socket.write(typed('X', Buffer.alloc(0)));
    try {
      expect((await b.query('SELECT $1::int AS n', [8])).rows).toEqual([{ n: 8 }]);
    } finally {
      raw.socket.destroy();
    }
  });

  it('refuses a connection beyond its limit with "too many clients" (53300)', async () => {
    const small = new PgliteWireServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1, password: PASSWORD });
    const smallUrl = `postgresql://postgres:${PASSWORD}@${await small.start()}/postgres?sslmode=disable`;
    try {
      const first = new Client({ connectionString: smallUrl });
      await first.connect();
      clients.push(first);
      await expect(new Client({ connectionString: smallUrl }).connect()).rejects.toMatchObject({ code: '53300' });
      expect((await first.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await Promise.all(clients.splice(0).map((client) => client.end()));
      await small.stop();
    }
  });
});

/** A typed frontend message: its type, then its length (itself included), then its body. */
function typed(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type);
  header.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([header, body]);
}

/** A connection spoken by hand, started up; it records the backend's messages from then on. */
async function rawSession(url: string) {
  const { hostname, port, password } = new URL(url);
  const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
  let seen = '';
  const rows: string[] = [];
  const waiting: Array<() => void> = [];
  socket.on('data', (data: Buffer) => {
    // Each answer here is small and arrives whole: read it message by message.
    for (let at = 0; at + 5 <= data.length; at += 1 + data.readInt32BE(at + 1)) {
      seen += String.fromCharCode(data[at] ?? 0);
      // A DataRow's first column: int16 count, int32 length, the text.
      if (data[at] === 0x44) rows.push(data.subarray(at + 11, at + 11 + data.readInt32BE(at + 7)).toString());
    }
    for (const check of waiting.splice(0)) check();
  });
  /** Waits for a message of `type` after those already seen. */
  const after = (from: number, type: string) =>
    new Promise<void>((resolve) => {
      const check = () => (seen.indexOf(type, from) >= 0 ? resolve() : waiting.push(check));
      check();
    });
  const parameters = Buffer.from('user\0postgres\0database\0postgres\0\0');
  const startup = Buffer.alloc(8);
  startup.writeInt32BE(8 + parameters.length, 0);
  startup.writeInt32BE(196608, 4);
  socket.write(Buffer.concat([startup, parameters]));
  // The server asks for the password (AuthenticationCleartextPassword) before PGlite answers.
  await after(0, 'R');
  socket.write(typed('p', Buffer.from(`${decodeURIComponent(password)}\0`)));
  await after(1, 'Z');
  const started = seen.length;
  return {
    socket,
    received: (type: string) => after(started, type),
    types: () => seen.slice(started),
    rows: () => rows,
  };
}
