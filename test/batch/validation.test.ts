import { describe, expect, it } from "vitest";
import { api, expectError } from "../helpers/api.ts";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { projectBody } from "../helpers/resources.ts";
import { committed, expectBatchRefused, expectSameRefusal, singleCall, type Operation } from "./helpers.ts";

// The batch's own body (docs/api.md "Batches"): 1..100 operations of { method, path, body?,
// ref?, ifMatch? }, each one a create, change, delete or PUT by external id of a record. What is
// wrong with the body's shape is answered by the field's path (operations.<i>.<field>); what is
// wrong with an operation's path, body or If-Match adds error.operation. Every refusal here
// writes nothing, though the batch starts with an operation that would.

const create = (): Operation => ({ method: "POST", path: "/v1/projects", body: projectBody() });

/** Sends a raw batch body (anything, not only { operations }) and expects a refusal that left no trace. */
async function refusedBody(tenant: Tenant, body: unknown, status: number, code: string, details: Record<string, unknown>) {
  const before = await snapshot(tenant.org.id);
  const response = await api("/v1/batch", { key: tenant.key, body });
  const error = expectError(response, status, code, details);
  expectNoTrace(before, await snapshot(tenant.org.id));
  return error;
}

describe("the batch's shape", () => {
  const cases: Array<[string, (t: Tenant) => unknown, string, string]> = [
    ["no operations field", () => ({}), "missing_field", "operations"],
    ["operations empty", () => ({ operations: [] }), "invalid_field", "operations"],
    ["101 operations", () => ({ operations: Array.from({ length: 101 }, create) }), "invalid_field", "operations"],
    ["operations not an array", () => ({ operations: create() }), "invalid_field", "operations"],
    ["a field beside operations", () => ({ operations: [create()], atomic: false }), "unknown_field", "atomic"],
    [
      "an unknown field on an operation",
      () => ({ operations: [create(), create(), { ...create(), headers: {} }] }),
      "unknown_field",
      "operations.2.headers",
    ],
    [
      "an operation without method",
      () => ({ operations: [create(), { path: "/v1/projects", body: projectBody() }] }),
      "missing_field",
      "operations.1.method",
    ],
    [
      "an operation without path",
      () => ({ operations: [create(), { method: "POST", body: projectBody() }] }),
      "missing_field",
      "operations.1.path",
    ],
    ["GET", () => ({ operations: [create(), { method: "GET", path: "/v1/projects" }] }), "invalid_field", "operations.1.method"],
    ["a method in lower case", () => ({ operations: [create(), { ...create(), method: "post" }] }), "invalid_field", "operations.1.method"],
    [
      "a path outside /v1/",
      () => ({ operations: [create(), { ...create(), path: "/internal/sweep" }] }),
      "invalid_field",
      "operations.1.path",
    ],
    [
      "a full URL as path",
      () => ({ operations: [create(), { ...create(), path: "https://elsewhere.example/v1/projects" }] }),
      "invalid_field",
      "operations.1.path",
    ],
    [
      "a body that is an array",
      () => ({ operations: [create(), { ...create(), body: [projectBody()] }] }),
      "invalid_field",
      "operations.1.body",
    ],
    ["a body that is null", () => ({ operations: [create(), { ...create(), body: null }] }), "invalid_field", "operations.1.body"],
    ["an ifMatch below 0", () => ({ operations: [create(), { ...create(), ifMatch: -1 }] }), "invalid_field", "operations.1.ifMatch"],
    [
      "an ifMatch that is not an integer",
      () => ({ operations: [create(), { ...create(), ifMatch: 1.5 }] }),
      "invalid_field",
      "operations.1.ifMatch",
    ],
  ];
  for (const [name, body, code, field] of cases) {
    it(`${name}: 400 ${code} on ${field}, nothing written`, async () => {
      const tenant = await createTenant();
      await refusedBody(tenant, body(tenant), 400, code, { field });
    });
  }

  it("a ref that is not a letter then up to 63 letters, digits, _ or -: 400 invalid_field on operations.<i>.ref", async () => {
    const tenant = await createTenant();
    for (const ref of ["1p", "", "a b", "$a", "a.id", "é", "a".repeat(65), 7]) {
      await refusedBody(tenant, { operations: [create(), { ...create(), ref }] }, 400, "invalid_field", { field: "operations.1.ref" });
    }
    // The longest and the odd characters allowed.
    await committed(tenant.key, [
      { ...create(), ref: `A${"z".repeat(63)}` },
      { ...create(), ref: "a_b-9" },
    ]);
  });

  it("invalid JSON: 400 invalid_json; a body over 1 MiB: 413 payload_too_large", async () => {
    const tenant = await createTenant();
    const before = await snapshot(tenant.org.id);
    expectError(await api("/v1/batch", { key: tenant.key, rawBody: '{"operations": [' }), 400, "invalid_json");
    const huge = { operations: [{ ...create(), body: projectBody({ description: "x".repeat(1024 * 1024) }) }] };
    expectError(await api("/v1/batch", { key: tenant.key, body: huge }), 413, "payload_too_large");
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it(
    "a body far over a single call's 64 KiB but under 1 MiB commits: 100 operations of 9 000-character descriptions",
    { timeout: 60_000 },
    async () => {
      const tenant = await createTenant();
      const operations = Array.from({ length: 100 }, (_, i) => ({
        ...create(),
        body: projectBody({ name: `Long ${i}`, description: "d".repeat(9_000) }),
      }));
      expect(JSON.stringify({ operations }).length).toBeGreaterThan(900_000);
      const answer = await committed(tenant.key, operations);
      expect(answer.data.every((r) => r.data.description === "d".repeat(9_000))).toBe(true);
    },
  );
});

describe("an operation a batch does not run: 400 invalid_field on operations.<i>.path, error.operation i", () => {
  const paths: Array<[string, (t: Tenant) => Promise<Operation>]> = [
    ["a path no endpoint has", async () => ({ method: "POST", path: "/v1/nothing", body: {} })],
    ["a webhook create", async () => ({ method: "POST", path: "/v1/webhooks", body: { url: "http://127.0.0.1:9/hook" } })],
    [
      "a webhook change",
      async (t) => ({ method: "PATCH", path: `/v1/webhooks/${(await t.insertProject()).id}`, body: { enabled: false } }),
    ],
    ["a realtime token", async () => ({ method: "POST", path: "/v1/realtime/tokens", body: {} })],
    [
      "an API key of the settings",
      async () => ({ method: "POST", path: "/v1/settings/api-keys", body: { name: "k", scopes: ["projects.read"] } }),
    ],
    ["a batch in a batch", async () => ({ method: "POST", path: "/v1/batch", body: { operations: [create()] } })],
    [
      "a method the path does not have (PUT on a record)",
      async (t) => ({ method: "PUT", path: `/v1/projects/${(await t.insertProject()).id}`, body: projectBody() }),
    ],
    [
      "a method the path does not have (POST on a record)",
      async (t) => ({ method: "POST", path: `/v1/projects/${(await t.insertProject()).id}`, body: projectBody() }),
    ],
    [
      "a delete of a person (people are deactivated, not deleted)",
      async (t) => ({ method: "DELETE", path: `/v1/personnel/${(await t.insertPerson()).id}` }),
    ],
    ["a query string", async () => ({ method: "POST", path: "/v1/projects?dryRun=true", body: projectBody() })],
    ["a trailing slash", async () => ({ method: "POST", path: "/v1/projects/", body: projectBody() })],
    [
      "a path that climbs out with ..",
      async (t) => ({ method: "PATCH", path: `/v1/webhooks/../projects/${(await t.insertProject()).id}`, body: { name: "x" } }),
    ],
  ];
  for (const [name, operation] of paths) {
    it(name, async () => {
      const tenant = await createTenant();
      await expectBatchRefused(tenant, [create(), await operation(tenant)], 400, "invalid_field", {
        field: "operations.1.path",
        operation: 1,
      });
    });
  }
});

describe("an operation's own path, body and If-Match: the single call's refusal, with error.operation", () => {
  it("a body on a DELETE: 400 unknown_field on operations.<i>.body", async () => {
    const tenant = await createTenant();
    const task = await tenant.insertTask();
    await expectBatchRefused(tenant, [create(), { method: "DELETE", path: `/v1/tasks/${task.id}`, body: {} }], 400, "unknown_field", {
      field: "operations.1.body",
      operation: 1,
    });
  });

  const singles: Array<[string, (t: Tenant) => Promise<Operation>, number, string, Record<string, unknown>]> = [
    [
      "an id that is not a UUID",
      async () => ({ method: "PATCH", path: "/v1/tasks/not-a-uuid", body: { title: "x" } }),
      400,
      "invalid_field",
      { field: "id" },
    ],
    [
      "a create without its required fields",
      async () => ({ method: "POST", path: "/v1/projects", body: {} }),
      400,
      "missing_field",
      { field: "name" },
    ],
    [
      "a field of the wrong type",
      async (t) => ({ method: "PATCH", path: `/v1/projects/${(await t.insertProject()).id}`, body: { budget: "a lot" } }),
      400,
      "invalid_field",
      { field: "budget" },
    ],
    [
      "an If-Match that is not a version",
      async (t) => ({ method: "PATCH", path: `/v1/projects/${(await t.insertProject()).id}`, ifMatch: "abc", body: { name: "x" } }),
      400,
      "invalid_field",
      { field: "If-Match" },
    ],
    [
      "two versions in one If-Match",
      async (t) => ({ method: "PATCH", path: `/v1/projects/${(await t.insertProject()).id}`, ifMatch: '"1", "2"', body: { name: "x" } }),
      400,
      "invalid_field",
      { field: "If-Match" },
    ],
  ];
  for (const [name, operation, status, code, details] of singles) {
    it(`${name}: ${status} ${code}, as the single call`, async () => {
      const tenant = await createTenant();
      const refused = await operation(tenant);
      const { response } = await expectBatchRefused(tenant, [create(), create(), refused], status, code, { ...details, operation: 2 });
      expectSameRefusal(response, await singleCall(tenant.key, refused), 2);
    });
  }
});
