// npm run settings:write
//
// Writes .env.example and the settings table of docs/operations.md from the table of settings
// (src/settings.ts), where each setting is described once.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SETTINGS } from '../src/settings';
import { DOC_FILE, ENV_FILE, envExample, withTables } from './settings-files';

const root = path.join(__dirname, '..');

async function main(): Promise<void> {
  const view = { rows: SETTINGS.rows, readers: SETTINGS.readersUnset() };
  await writeFile(path.join(root, ENV_FILE), envExample(view));
  const doc = path.join(root, DOC_FILE);
  await writeFile(doc, withTables(await readFile(doc, 'utf8'), view));
  console.log(`Wrote ${ENV_FILE} and the settings of ${DOC_FILE}.`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
