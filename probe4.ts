import { startInMemoryPostgres } from './src/infrastructure/database/embedded-postgres';
import { migrateDatabase } from './src/infrastructure/database/migrate-database';
async function main() {
  let t = Date.now(); const lap = (l: string) => { console.log(l, Date.now() - t); t = Date.now(); };
  const pg = await startInMemoryPostgres(); lap('start');
  console.log(await migrateDatabase(pg.connectionString)); lap('migrate');
  console.log(await migrateDatabase(pg.connectionString)); lap('migrate2');
  await pg.stop(); lap('stop');
  const url = 'postgresql://postgres@127.0.0.1:5432/postgres';
  const { Client } = await import('pg');
  const c = new Client({ connectionString: url }); await c.connect(); await c.query('DROP DATABASE IF EXISTS probe4'); await c.query('CREATE DATABASE probe4'); lap('createdb');
  const u2 = 'postgresql://postgres@127.0.0.1:5432/probe4';
  console.log(await migrateDatabase(u2)); lap('migrate real');
  console.log(await migrateDatabase(u2)); lap('migrate real 2');
  await c.query('DROP DATABASE probe4 WITH (FORCE)'); await c.end(); lap('drop');
}
main();
