import {
  budgetProblem,
  connectionDemand,
  type ConnectionPlan,
} from '../../../src/infrastructure/database/health/connection-budget';

const direct: ConnectionPlan = {
  replicas: 2,
  processes: 4,
  poolSize: 10,
  listeners: 2,
  jobQueue: 1,
  poolerConnections: undefined,
};
const pooled: ConnectionPlan = { ...direct, poolerConnections: 20 };
const server = 'postgresql://app:secret@db.internal:5432/timenav';

describe('connectionDemand', () => {
  it("counts every process's pool, job queue and listeners, and one connection per instance while it migrates", () => {
    expect(connectionDemand(direct)).toEqual({
      total: 80 + 8 + 16 + 2,
      parts: [
        '8 processes × 10 pool connections (80)',
        '8 processes × 1 job queue (8)',
        '8 processes × 2 listening (16)',
        '1 per instance while it migrates at start (2)',
      ],
    });
  });

  it("behind a pooler, counts the pooler's server connections instead of the pools and job queues", () => {
    expect(connectionDemand({ ...pooled, poolSize: 50 })).toEqual({
      total: 20 + 16 + 2,
      parts: [
        "the pooler's 20 server connections (20)",
        '8 processes × 2 listening (16)',
        '1 per instance while it migrates at start (2)',
      ],
    });
  });
});

describe('budgetProblem', () => {
  it('accepts a plan that fits what the server leaves to other than superusers', () => {
    expect(budgetProblem(direct, { maxConnections: 109, reserved: 3 }, server)).toBeUndefined();
    expect(budgetProblem(pooled, { maxConnections: 41, reserved: 3 }, server)).toBeUndefined();
  });

  it('refuses one connection too many, naming the server without its password and a pool size that fits', () => {
    const problem = budgetProblem(direct, { maxConnections: 108, reserved: 3 }, server);
    expect(problem).toBe(
      'The service would open up to 106 connections to PostgreSQL at db.internal:5432/timenav, which allows 105 ' +
        '(max_connections 108, 3 reserved): 8 processes × 10 pool connections (80) + 8 processes × 1 job queue ' +
        '(8) + 8 processes × 2 listening (16) + 1 per instance while it migrates at start (2). Set ' +
        'DATABASE_POOL_SIZE=9 or less, fewer WEB_CONCURRENCY ' +
        'or SERVICE_REPLICAS, a larger max_connections, or a pooler in front (DATABASE_DIRECT_URL, ' +
        'docs/operations.md#behind-a-connection-pooler). See docs/operations.md#the-connection-budget.',
    );
    expect(problem).not.toContain('secret');
  });

  it('says no pool size fits when the listeners alone are too many', () => {
    expect(budgetProblem(direct, { maxConnections: 20, reserved: 3 }, server)).toContain(
      'Set a smaller DATABASE_POOL_SIZE, fewer WEB_CONCURRENCY or SERVICE_REPLICAS',
    );
  });

  it("behind a pooler, names the pooler's connections that would fit", () => {
    expect(budgetProblem(pooled, { maxConnections: 40, reserved: 3 }, server)).toContain(
      "Set DATABASE_POOLER_CONNECTIONS of at most 19 (with the pooler's own max_db_connections to match)",
    );
  });
});
