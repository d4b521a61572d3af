import 'reflect-metadata';
import { buildContainer } from '../../../src/composition/container';
import { credentialHasher } from '../../../src/composition/tokens';
import type { CredentialHasher } from '../../../src/core/ports/credential-hasher';
import type { PrismaClient } from '../../../src/infrastructure/database/driver/prisma-client';
import type { SqlRunner } from '../../../src/infrastructure/database/driver/sql-runner';

// The HTTP suites hash at a lower cost (tests/support/http/test-app.ts): the service's own
// composition, which names no cost, must hash as shipped.
describe("the service's container", () => {
  const database = { prisma: {} as PrismaClient, sql: {} as SqlRunner };

  const turn = { clientAddress: '192.0.2.1', knownDevice: false };

  it('hashes passwords at the shipped cost unless told another', async () => {
    const shipped = buildContainer(database).get<CredentialHasher>(credentialHasher);
    expect(await shipped.hashPassword('correct horse battery', turn)).toMatch(/^scrypt2\$32768\$8\$3\$/);

    const cheaper = buildContainer({ ...database, scryptCost: { N: 1024, r: 8, p: 1 } });
    expect(await cheaper.get<CredentialHasher>(credentialHasher).hashPassword('x', turn)).toMatch(
      /^scrypt2\$1024\$8\$1\$/,
    );
  });
});
