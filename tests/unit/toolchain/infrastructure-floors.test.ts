// The floors of src/infrastructure (INFRASTRUCTURE_FLOORS in .dependency-cruiser.js, which
// `npm run lint:layers` holds the code to): an import down a floor or beside passes, one up a floor
// is refused, and so is any import of a folder left off the floors. Read here as dependency-cruiser
// reads a rule's `path` and `pathNot`, on paths of files as they stand or as they could.
interface PathCondition {
  readonly path?: string;
  readonly pathNot?: string;
  readonly circular?: boolean;
}
interface Rule {
  readonly name: string;
  readonly from: PathCondition;
  readonly to: PathCondition;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS, as dependency-cruiser loads it
const { forbidden } = require('../../../.dependency-cruiser.js') as { forbidden: Rule[] };

/** Whether `file` meets the condition; one on more than paths (a cycle) is not read here. */
const holds = (condition: PathCondition, file: string): boolean =>
  condition.circular === undefined &&
  (condition.path === undefined || new RegExp(condition.path).test(file)) &&
  (condition.pathNot === undefined || !new RegExp(condition.pathNot).test(file));

/** The rules an import of `to` from `from` breaks, both paths under src/infrastructure/. */
function broken(from: string, to: string): string[] {
  const [source, target] = [from, to].map((file) => `src/infrastructure/${file}`);
  return forbidden.filter((rule) => holds(rule.from, source) && holds(rule.to, target)).map((rule) => rule.name);
}

it.each([
  ['persistence/postgres/transaction-boundary.ts', 'database/driver/database-failures.ts'],
  ['persistence/postgres/repositories.ts', 'database/driver/generated/client.ts'],
  ['database/open-database.ts', 'database/embedded/embedded-postgres.ts'],
  ['database/health/readiness.ts', 'database/migrations/package-root.ts'],
  ['database/embedded/statistics/embedded-analysis.ts', 'database/driver/sql-runner.ts'],
  ['event-changes/event-change-signals.ts', 'database/driver/notification-listener.ts'],
  ['metrics/service-metrics.ts', 'persistence/postgres/transaction-boundary.ts'],
])('lets %s import %s (down a floor)', (from, to) => {
  expect(broken(from, to)).toEqual([]);
});

it.each([
  ['database/driver/prisma-client.ts', 'persistence/postgres/repositories.ts'],
  ['database/driver/database-failures.ts', 'persistence/kysely/generated/types.ts'],
  ['database/driver/pool-sql-runner.ts', 'database/open-database.ts'],
  ['database/embedded/embedded-postgres.ts', 'database/health/readiness.ts'],
  ['database/migrations/migrate-database.ts', 'persistence/postgres/kysely.ts'],
  ['persistence/postgres/event-feed.ts', 'metrics/database-metrics.ts'],
])('refuses %s importing %s (up a floor)', (from, to) => {
  expect(broken(from, to)).toEqual(['no-arrow-up-in-infrastructure']);
});

it('refuses a folder that stands on no floor, whatever it imports', () => {
  expect(broken('caches/some-cache.ts', 'telemetry/trace-context.ts')).toEqual(['infrastructure-on-a-floor']);
});
