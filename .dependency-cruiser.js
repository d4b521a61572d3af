// The layer rules of the hexagon, checked in `npm test` so they cannot rot into prose.

/**
 * The floors of src/infrastructure, from the ground up: a file imports from its own floor or below,
 * never from above, so the database's driver knows nothing of the persistence built on it. Each
 * entry is a folder (or a file) under src/infrastructure/; a new folder takes its place here.
 */
const INFRASTRUCTURE_FLOORS = [
  ['database/driver', 'telemetry', 'passwords', 'throttling', 'webhook-delivery'],
  ['database/embedded', 'database/migrations', 'system', 'event-changes', 'api-key-cache'],
  ['database/health', 'database/open-database.ts', 'persistence', 'job-queue'],
  ['metrics'],
];

/** A path pattern for these entries of src/infrastructure/: each a folder, or a file named whole. */
function infrastructure(entries) {
  const names = entries.map((entry) => entry.replaceAll('.', '\\.'));
  return `^src/infrastructure/(${names.join('|')})(/|$)`;
}

const floorRules = INFRASTRUCTURE_FLOORS.slice(0, -1).map((floor, index) => ({
  name: 'no-arrow-up-in-infrastructure',
  comment: `Floor ${index + 1} of INFRASTRUCTURE_FLOORS imports nothing from a floor above it.`,
  severity: 'error',
  from: { path: infrastructure(floor) },
  to: { path: infrastructure(INFRASTRUCTURE_FLOORS.slice(index + 1).flat()) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...floorRules,
    {
      name: 'infrastructure-on-a-floor',
      comment: 'Every file of src/infrastructure stands on one of INFRASTRUCTURE_FLOORS, so the rule above sees it.',
      severity: 'error',
      from: { path: '^src/infrastructure/', pathNot: infrastructure(INFRASTRUCTURE_FLOORS.flat()) },
      to: {},
    },
    {
      name: 'core-is-pure',
      comment: 'The core (entities, ports, use cases) imports no framework, driver or Node module: only itself.',
      severity: 'error',
      from: { path: '^src/core' },
      to: { pathNot: '^src/core' },
    },
    {
      name: 'http-does-not-reach-adapters',
      comment: "Controllers talk to use cases; which adapter serves a port is the composition root's business.",
      severity: 'error',
      from: { path: '^src/interfaces' },
      to: { path: '^src/(infrastructure|composition)' },
    },
    {
      name: 'adapters-do-not-reach-http',
      severity: 'error',
      from: { path: '^src/infrastructure' },
      to: { path: '^src/(interfaces|composition)' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    // The generated clients are read as leaves: imports of them are checked, theirs are not.
    doNotFollow: { path: ['node_modules', '^src/infrastructure/(database/driver|persistence/kysely)/generated/'] },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
