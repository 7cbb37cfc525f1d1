import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROUTES_TABLE, verbNames } from "../../functions/openapi/routes-table.ts";
import { ROOT } from "../../functions/openapi/verb-statements.ts";
import { loadRoutes } from "../../functions/routes/index.ts";

const routes = await loadRoutes();

// docs/routes.md, the table that finds a route by its path (`PATCH /v1/tasks/{id}`), is generated
// from the registry and the services' source: it must be current, and the verb each route
// declares for it must be the one its handler runs.

describe("docs/routes.md", () => {
  it("is gathered once per process: loadRoutes() answers the same array (what is built from it, MCP's tools, is kept by it)", async () => {
    expect(await loadRoutes()).toBe(routes);
  });

  it("has a row for every route, found by its method and path as the document writes it", () => {
    const table = readFileSync(join(ROOT, ROUTES_TABLE), "utf8");
    for (const route of routes) expect(table).toContain(`| \`${route.method.toUpperCase()} ${route.path}\` | \`${route.operationId}\` |`);
    expect(table).toContain("| `PATCH /v1/tasks/{id}` | `updateTask` |");
  });

  it("names, for each route, the verb its handler (or its batch run) calls", async () => {
    const verbs = await verbNames();
    for (const route of routes) {
      if (route.verb === null) continue;
      const verb = verbs.get(route.verb);
      expect(verb, `${route.operationId}: its verb is a function of services/`).toBeDefined();
      // The call as the source has it (`addDependency(`), or as vitest's transform writes an import's (`.addDependency)(`).
      const code = String(route.handler) + String(route.batch?.run ?? "");
      const name = verb!.member ?? verb!.name;
      expect(code, `${route.operationId}: the handler runs ${name}`).toMatch(new RegExp(`\\b${name}\\)?\\(`));
    }
  });
});
