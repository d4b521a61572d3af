// npx tsx scripts/openapi-document.ts <file>
//
// Writes the OpenAPI document the service serves at GET /openapi.json to <file>, for the linters
// (npm run lint:openapi). It is built from the route table with no database: the pool is created
// but never connected, since no route is run.
import 'reflect-metadata';
import { writeFile } from 'node:fs/promises';
import { buildContainer } from '../src/composition/container';
import { createDatabaseClients } from '../src/infrastructure/database/prisma-client';
import { allRoutes } from '../src/interfaces/http/app';
import { buildOpenApiDocument } from '../src/interfaces/http/openapi/document';

async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file) throw new Error('usage: tsx scripts/openapi-document.ts <file>');
  const clients = createDatabaseClients('postgresql://unused@127.0.0.1:1/unused');
  try {
    const document = buildOpenApiDocument(allRoutes(buildContainer(clients)));
    await writeFile(file, `${JSON.stringify(document, null, 2)}\n`);
  } finally {
    await clients.prisma.$disconnect();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
