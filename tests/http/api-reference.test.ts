import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildContainer } from '../../src/composition/container';
import { allRoutes } from '../../src/interfaces/http/app';
import { openApiPath } from '../../src/interfaces/http/openapi/operation';
import type { Route } from '../../src/interfaces/http/route';
import { startTestApp, type TestApp } from '../support/http/test-app';

/** docs/api.md is written by hand: these checks keep it to the operations the service runs. */
describe('docs/api.md', () => {
  let t: TestApp;
  let routes: Route[];
  const reference = readFileSync(join(__dirname, '../../docs/api.md'), 'utf8');
  const sections = new Map(
    reference
      .split(/^### /m)
      .slice(1)
      .map((section) => [section.slice(0, section.indexOf('\n')).replaceAll('`', '').trim(), section]),
  );
  const heading = (route: Route) => `${route.method.toUpperCase()} ${openApiPath(route.path)}`;

  beforeAll(async () => {
    t = await startTestApp();
    routes = allRoutes(buildContainer({ prisma: t.prisma, sql: t.sql, wallClock: t.clock }));
  });
  afterAll(() => t.close());

  it('has one section for every operation, and none for an operation that does not exist', () => {
    expect([...sections.keys()].sort()).toEqual(routes.map(heading).sort());
  });

  it("names every error code an operation declares in that operation's section", () => {
    const missing = routes.flatMap((route) =>
      (route.docs?.errors ?? [])
        .filter((code) => !sections.get(heading(route))?.includes(code))
        .map((code) => `${heading(route)}: ${code}`),
    );
    expect(missing).toEqual([]);
  });

  it('links every operation from its table of contents', () => {
    const linked = [...reference.matchAll(/^\| [^|]+ \| \[`([^`]+)`\]\(#[^)]+\)/gm)].map(([, operation]) => operation);
    expect(linked.sort()).toEqual(routes.map(heading).sort());
  });
});
