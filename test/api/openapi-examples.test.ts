import { beforeAll, describe, expect, it } from "vitest";
import { ERROR_STATUS } from "../../functions/errors.ts";
import { eventCatalogue } from "../../functions/lib/event-catalogue.ts";
import { SCOPES } from "../../domain/scopes.ts";
import { routes } from "../../functions/routes/index.ts";
import { api } from "../helpers/api.ts";

// What GET /docs shows besides the operations: every operation carries a whole example request and
// answer that the API itself would accept and could send (each is parsed with the route's own zod
// schema), and the introduction documents every error code, scope and event type.

let document: any;

beforeAll(async () => {
  document = (await api("/v1/openapi.json")).body;
});

describe("the OpenAPI document's examples and guide", () => {
  it("gives every operation an example answer that its response schema accepts", () => {
    for (const route of routes) {
      const status = String(route.response.status ?? 200);
      const example = document.paths[route.path][route.method].responses[status].content["application/json"].example;
      expect(example, `${route.operationId}: no example`).toBeDefined();
      const parsed = route.response.schema.safeParse(example);
      expect(parsed.success, `${route.operationId}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
  });

  it("gives every operation with a body an example request that its body schema accepts", () => {
    for (const route of routes.filter((r) => r.body)) {
      const example = document.paths[route.path][route.method].requestBody.content["application/json"].example;
      expect(example, `${route.operationId}: no example`).toBeDefined();
      const parsed = route.body!.safeParse(example);
      expect(parsed.success, `${route.operationId}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
  });

  it("documents the envelope, every error code, every scope and every event type", () => {
    const guide: string = document.info.description;
    expect(guide).toContain('"success": false');
    for (const code of Object.keys(ERROR_STATUS)) expect(guide).toContain(`\`${code}\``);
    for (const scope of Object.keys(SCOPES)) expect(guide).toContain(`\`${scope}\``);
    const types = eventCatalogue(routes).map((event) => event.type);
    for (const type of types) expect(guide).toContain(`\`${type}\``);
    // docs/api.md "changeVersion and events": the catalogue derived from the registry includes the list docs/api.md gives.
    expect(types).toEqual(expect.arrayContaining(["task.deleted", "project.deleted", "milestone.deleted", "personnel.updated"]));
    expect(types).not.toContain("personnel.deleted");
  });
});
