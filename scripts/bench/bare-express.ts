// The yardstick: the least an Express 5 JSON service does (one JSON GET, one JSON POST echo), run in
// its own process as the service is, so the benchmark can print every figure as a ratio to it.
// With DATABASE_URL it also serves the least a database-backed endpoint does: one node-postgres
// round trip per request (a SELECT; an INSERT committed on its own). These calibrate the targets:
// what one round trip to PostgreSQL costs on this machine, before any work of the service. With
// SERVICE_DATABASE_URL it serves the floors too: the service's own statements alone (floors.ts).
import express from 'express';
import { Pool } from 'pg';
import { mountFloors } from './floors';

const app = express();
app.disable('x-powered-by');
app.use(express.json());
app.get('/bare', (_req, res) => {
  res.json({ status: 'ok', time: new Date().toISOString() });
});
app.post('/bare', (req, res) => {
  res.status(201).json(req.body);
});

const databaseUrl = process.env.DATABASE_URL;
const pool = databaseUrl ? new Pool({ connectionString: databaseUrl }) : null;
if (pool) {
  app.get('/bare/select', async (_req, res) => {
    const { rows } = await pool.query<{ now: Date }>('SELECT now() AS now');
    res.json({ status: 'ok', time: rows[0]?.now });
  });
  app.post('/bare/insert', async (req, res) => {
    await pool.query('INSERT INTO bench_echo (body) VALUES ($1)', [JSON.stringify(req.body)]);
    res.status(201).json(req.body);
  });
}

// The floors run the service's statements on the service's database (migrated by the service).
const serviceDatabaseUrl = process.env.SERVICE_DATABASE_URL;
const servicePool = serviceDatabaseUrl ? new Pool({ connectionString: serviceDatabaseUrl }) : null;
if (servicePool) mountFloors(app, servicePool);

async function start(): Promise<void> {
  await pool?.query('CREATE TABLE IF NOT EXISTS bench_echo (id bigserial PRIMARY KEY, body jsonb NOT NULL)');
  const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address();
    console.log(
      `bare express listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    );
  });
  process.once('SIGTERM', () =>
    server.close(() => void Promise.all([pool?.end(), servicePool?.end()]).then(() => process.exit(0))),
  );
}

start().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
