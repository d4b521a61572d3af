// npx tsx scripts/openapi-document.ts [<file>]
//
// Writes the OpenAPI document the service serves at GET /openapi.json: to <file> for the linters
// (npm run lint:openapi), or without one to openapi.json at the root, the committed document, then
// says whether CHANGELOG.md's newest entry names it (npm run openapi:write). It is built from the
// route table with no database: the pool is created but never connected, since no route is run.
import 'reflect-metadata';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildContainer } from '../src/composition/container';
import { createDatabaseClients } from '../src/infrastructure/database/driver/prisma-client';
import { allRoutes } from '../src/interfaces/http/app';
import { buildOpenApiDocument } from '../src/interfaces/http/openapi/document';
import { CHANGELOG_FILE, digestOf, DOCUMENT_FILE, documentText, unnamedDocument } from './openapi-file';

const root = path.join(__dirname, '..');

async function servedDocumentText(): Promise<string> {
  const clients = createDatabaseClients('postgresql://unused@127.0.0.1:1/unused');
  try {
    return documentText(buildOpenApiDocument(allRoutes(buildContainer(clients))));
  } finally {
    await clients.prisma.$disconnect();
  }
}

async function main(): Promise<void> {
  const text = await servedDocumentText();
  const file = process.argv[2];
  if (file) {
    await writeFile(file, text);
    return;
  }
  await writeFile(path.join(root, DOCUMENT_FILE), text);
  const digest = digestOf(text);
  const missing = unnamedDocument(await readFile(path.join(root, CHANGELOG_FILE), 'utf8'), digest);
  console.log(`Wrote ${DOCUMENT_FILE}, ${digest}.`);
  console.log(missing ?? `${CHANGELOG_FILE}'s newest entry names it.`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
