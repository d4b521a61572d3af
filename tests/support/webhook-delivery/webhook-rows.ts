// Rows the webhook tests start from, written as the service's statements write them: accounts
// ready to write, an endpoint receiving event.recorded, an event whose statement records its messages.
import { Timeline } from '../../../src/core/domain/timeline';
import type { SqlRunner } from '../../../src/infrastructure/database/driver/sql-runner';
import { aPausedTraveller } from '../builders/traveller-builder';
import { anAccountRecord } from '../contracts/subject';
import { plainRepositories } from '../plain-repositories';
import type { TestDatabase } from '../test-database';

export const TEST_SECRET = `whsec_${Buffer.from('a secret of thirty-two bytes ...').toString('base64')}`;

/** Accounts with their traveller and primary timeline, as a sign-up leaves them. */
export async function accountsReadyToWrite(database: TestDatabase, accounts: readonly string[]): Promise<void> {
  const repos = plainRepositories(database);
  for (const account of accounts) {
    await repos.accounts.add(anAccountRecord(account));
    await repos.travellers.add(aPausedTraveller(account));
    await repos.timelines.add(Timeline.primary(account, new Date('2030-01-01T00:00:00Z')));
  }
}

/** An enabled endpoint of `account` at `url`, receiving event.recorded. */
export async function anEndpointAt(sql: SqlRunner, account: string, id: string, url: string): Promise<void> {
  await sql.query(
    `INSERT INTO webhook_endpoints (account_id, id, url, event_types, status, secret, created_at)
     VALUES ($1, $2, $3, '{event.recorded}', 'enabled', $4, now())`,
    [account, id, url, TEST_SECRET],
  );
}

/** An event of `account`, whose statement records a message for each of its endpoints. */
export async function anEventOf(sql: SqlRunner, account: string, id: string): Promise<void> {
  await sql.query(
    `INSERT INTO events (account_id, id, timeline_id, kind, time, original_time, description, location,
                         description_key, location_key, recorded_at, revision)
     VALUES ($1, $2, 'primary', 'arrival', now(), now(), 'Arrival', 'home', 'd', 'l', now(), 0)`,
    [account, id],
  );
}
