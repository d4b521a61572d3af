// Accounts for the crowd loads, made in the database as the service makes them (an account, its
// traveller on its primary timeline, one API key), copied from one account signed up through the
// API: thousands of sign-ups would each hash a password, minutes of CPU the loads do not measure.
import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { signUpFrom } from './loopback-sign-up';

/** Where the template account signs up from: no other load of the bench sends from there. */
const TEMPLATE_ADDRESS = '127.0.254.1';

export interface SeededAccount {
  readonly id: string;
  readonly auth: string;
  /** Its primary timeline, where its traveller is. */
  readonly timelineId: string;
}

/** `count` accounts named `<who>-<n>`, each with its own key, all like one signed up just now. */
export async function seedAccounts(
  url: string,
  databaseUrl: string,
  who: string,
  count: number,
): Promise<SeededAccount[]> {
  // From an address of its own: the bench's other sign-ups may have spent 127.0.0.1's quota this minute.
  const signedUp = await signUpFrom(url, TEMPLATE_ADDRESS, `${who}-template-${Date.now()}@bench.example`);
  if (signedUp.status !== 201) throw new Error(`the template sign-up answered ${signedUp.status}`);
  const template = signedUp.body;
  const run = Date.now().toString(16);
  const accounts = Array.from({ length: count }, (_, n) => {
    const suffix = `${run}${n.toString(16).padStart(8, '0')}`.padStart(32, '0');
    const key = `tns_${`${who}${suffix}`
      .replace(/[^A-Za-z0-9]/g, 'x')
      .padEnd(43, 'k')
      .slice(0, 43)}`;
    return { id: `acc_${suffix}`, key, digest: createHash('sha256').update(key).digest('hex') };
  });
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ timeline_id: string }>(
      'SELECT timeline_id FROM travellers WHERE account_id = $1',
      [template.id],
    );
    const timelineId = rows[0]?.timeline_id ?? '';
    await db.query('BEGIN');
    const ids = accounts.map((account) => account.id);
    await db.query(
      `INSERT INTO accounts (id, email, password_hash, created_at)
       SELECT a.id, a.id || '@bench.example', t.password_hash, now()
         FROM unnest($1::text[]) AS a(id), accounts t WHERE t.id = $2`,
      [ids, template.id],
    );
    await db.query(
      `INSERT INTO timelines (account_id, id, name, destination_time, created_at, status, window_minutes)
       SELECT a.id, t.id, t.name, t.destination_time, t.created_at, t.status, t.window_minutes
         FROM unnest($1::text[]) AS a(id), timelines t WHERE t.account_id = $2`,
      [ids, template.id],
    );
    await db.query(
      `INSERT INTO travellers (account_id, clock_reading, clock_read_at, clock_paused, timeline_id, location)
       SELECT a.id, t.clock_reading, t.clock_read_at, t.clock_paused, t.timeline_id, t.location
         FROM unnest($1::text[]) AS a(id), travellers t WHERE t.account_id = $2`,
      [ids, template.id],
    );
    await db.query(
      `INSERT INTO api_keys (id, account_id, prefix, digest, created_at)
       SELECT 'key_' || substr(a.id, 5), a.id, left(a.key, 12), a.digest, now()
         FROM unnest($1::text[], $2::text[], $3::text[]) AS a(id, key, digest)`,
      [ids, accounts.map((account) => account.key), accounts.map((account) => account.digest)],
    );
    await db.query('COMMIT');
    await db.query('ANALYZE accounts, timelines, travellers, api_keys');
    return accounts.map((account) => ({ id: account.id, auth: `Bearer ${account.key}`, timelineId }));
  } finally {
    await db.end();
  }
}
