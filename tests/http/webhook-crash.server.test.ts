// Webhook deliveries survive kill -9 of every service process on PostgreSQL, two worker processes
// and their primary: every message arrives at least once after a fresh start, the same webhook-id
// and body, and only those in flight at the kill arrive twice
// (tests/support/webhook-delivery/crash-scenario.ts). On the embedded database: webhook-crash.test.ts.
import { deliveriesSurviveKill } from '../support/webhook-delivery/crash-scenario';
import { provisionTestDatabase } from '../support/test-database';

it('delivers every message after kill -9 of every service process on PostgreSQL', async () => {
  const database = await provisionTestDatabase();
  try {
    await deliveriesSurviveKill(
      {
        env: { DATABASE_URL: database.connectionString },
        query: (text, params) => database.sql.query(text, [...params]),
      },
      { processes: 2 },
    );
  } finally {
    await database.close();
  }
}, 240_000);
