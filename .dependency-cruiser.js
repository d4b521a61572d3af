// The layer rules of the hexagon, checked in `npm test` so they cannot rot into prose.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
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
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'src/infrastructure/(database/driver|persistence/kysely)/generated' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
