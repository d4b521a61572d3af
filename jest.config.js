// Three kinds of tests, visible by folder and by project name:
// unit (the pure core, with in-memory fakes), integration (Prisma adapters and the database on a
// real PostgreSQL), http (the whole app through supertest).
const tsJest = ['ts-jest', {}];

/** @type {import('jest').Config} */
const base = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': tsJest },
  moduleFileExtensions: ['ts', 'js', 'json'],
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/tests/unit/**/*.test.ts'] },
    { ...base, displayName: 'integration', testMatch: ['<rootDir>/tests/integration/**/*.test.ts'] },
    { ...base, displayName: 'http', testMatch: ['<rootDir>/tests/http/**/*.test.ts'] },
  ],
};
