import 'reflect-metadata';
import type { Logger } from 'pino';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { buildContainer } from '../../../src/composition/container';
import type { PrismaClient } from '../../../src/infrastructure/persistence/prisma/generated/client';
import { isDatabaseUnavailable } from '../../../src/infrastructure/database/prisma-client';
import { databaseReadiness } from '../../../src/infrastructure/database/readiness';
import { createApp } from '../../../src/interfaces/http/app';
import { ShiftableWallClock } from '../shiftable-wall-clock';
import { provisionTestDatabase } from '../test-database';

export interface TestAccount {
  readonly id: string;
  readonly email: string;
  readonly apiKey: string;
  /** `Authorization` header value for this account. */
  readonly auth: string;
}

export interface TestApp {
  readonly app: Express;
  readonly prisma: PrismaClient;
  /** The test database, for a second service process to share. */
  readonly connectionString: string;
  readonly clock: ShiftableWallClock;
  signUp(): Promise<TestAccount>;
  close(): Promise<void>;
}

let accounts = 0;

export interface TestAppOptions {
  /** Express 'trust proxy', as TRUST_PROXY sets it in the service. */
  readonly trustProxy?: boolean | number | string;
  /** Request log lines go here when given (as the service's go to stdout). */
  readonly logger?: Logger;
  /** Rate limits, as RATE_LIMIT_PER_SECOND and RATE_LIMIT_ACCOUNTS_PER_MINUTE set them; off unless given. */
  readonly rateLimit?: { readonly perKeyPerSecond?: number; readonly accountsPerMinute?: number };
}

/** The real app over its own fresh database; one per test file. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = await provisionTestDatabase();
  const clock = new ShiftableWallClock();
  const errors: unknown[] = [];
  const app = createApp(buildContainer({ prisma: database.prisma, wallClock: clock }), {
    logError: (error) => errors.push(error),
    trustProxy: options.trustProxy ?? false,
    formSecret: randomBytes(32).toString('base64url'),
    logger: options.logger,
    readiness: databaseReadiness(database.prisma),
    isUnavailable: isDatabaseUnavailable,
    rateLimit: options.rateLimit,
  });
  return {
    app,
    prisma: database.prisma,
    connectionString: database.connectionString,
    clock,
    async signUp() {
      const email = `traveller-${process.pid}-${++accounts}-${Date.now()}@example.com`;
      const response = await request(app).post('/v1/accounts').send({ email, password: 'correct horse battery' });
      if (response.status !== 201) throw new Error(`sign-up failed: ${response.status} ${JSON.stringify(response.body)}`);
      return { id: response.body.id, email, apiKey: response.body.api_key, auth: `Bearer ${response.body.api_key}` };
    },
    async close() {
      await database.close();
      // A 500 in any test of the file is a defect even when the test did not look at it.
      if (errors.length > 0) throw new Error(`the app logged ${errors.length} internal error(s): ${String(errors[0])}`);
    },
  };
}
