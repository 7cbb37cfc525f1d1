import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { honoPath } from "../../functions/entry-points.ts";
import { loadRoutes } from "../../functions/routes/index.ts";
import { api, workerUrl } from "../helpers/api.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { asPerson, signUp } from "../helpers/people.ts";

// GET /v1/openapi.json (docs/api.md): public, OpenAPI 3.1, generated from the same
// registry as GET /v1's `operations`, so both list exactly the same operations; and it passes
// Redocly's lint with the repository's redocly.yaml.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The operations that take a signed-in session only (the settings area, a person's notifications): keys are answered 401. */
const SESSION_ONLY = new Set(
  (await loadRoutes()).filter((route) => route.auth === "session").map((route) => `${route.method.toUpperCase()} ${honoPath(route.path)}`),
);
const sessionOnly = (operation: { method: string; path: string }) =>
  SESSION_ONLY.has(`${operation.method.toUpperCase()} ${operation.path}`);
const METHODS = ["get", "post", "put", "patch", "delete"];

interface Operation {
  method: string;
  path: string;
  scope: string | null;
  summary: string;
}

let document: any;
let operations: Operation[];
let keyOperations: Operation[];

beforeAll(async () => {
  const response = await api("/v1/openapi.json");
  expect(response.status, response.text.slice(0, 300)).toBe(200);
  document = response.body;
  const tenant = await createTenant({ scopes: ["tasks.read"] });
  keyOperations = (await api("/v1", { key: tenant.key })).body.operations;
  // A person signed in is offered every operation, the settings area too.
  const person = await signUp();
  operations = (await asPerson(person.cookie, "/v1")).body.operations;
});

/** "METHOD /v1/path/:param" for each operation of the document. */
function documentOperations(): Map<string, any> {
  const found = new Map<string, any>();
  for (const [path, item] of Object.entries<Record<string, unknown>>(document.paths)) {
    for (const method of METHODS.filter((m) => m in item)) {
      found.set(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`, item[method]);
    }
  }
  return found;
}

describe("GET /v1/openapi.json", () => {
  it("answers without a key: an OpenAPI 3.1 JSON document", async () => {
    const response = await api("/v1/openapi.json");
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("describes the OAuth 2.1 flows as discovery does, with every scope and GET /v1's label for it", async () => {
    const { oauth2 } = document.components.securitySchemes;
    const metadata = (await api("/.well-known/oauth-authorization-server")).body;
    const origin = new URL(workerUrl()).origin;
    // An owner's session holds every scope, so its GET /v1 labels each one.
    const owner = await signUp();
    const held = (await asPerson(owner.cookie, "/v1")).body.scopes as { scope: string; label: string }[];
    const labels = Object.fromEntries(held.map((s) => [s.scope, s.label]));
    expect(oauth2.type).toBe("oauth2");
    const { authorizationCode, clientCredentials } = oauth2.flows;
    expect(`${origin}${authorizationCode.authorizationUrl}`).toBe(metadata.authorization_endpoint);
    expect(`${origin}${authorizationCode.tokenUrl}`).toBe(metadata.token_endpoint);
    expect(authorizationCode.refreshUrl).toBe(authorizationCode.tokenUrl);
    expect(clientCredentials.tokenUrl).toBe(authorizationCode.tokenUrl);
    expect(Object.keys(authorizationCode.scopes)).toEqual(metadata.scopes_supported);
    expect(authorizationCode.scopes).toEqual(labels);
    expect(clientCredentials.scopes).toEqual(labels);
  });

  it("a key's GET /v1 lists every operation but a session's (the settings area, notifications), which answer keys 401", () => {
    const sessions = (ops: Operation[]) => ops.filter(sessionOnly);
    expect(sessions(keyOperations)).toEqual([]);
    expect(sessions(operations).length).toBeGreaterThan(0);
    expect(operations.filter((o) => o.path.startsWith("/v1/settings/")).every(sessionOnly)).toBe(true);
    expect(keyOperations).toEqual(operations.filter((o) => !sessionOnly(o)));
  });

  it("covers exactly the operations GET /v1 lists, no more, no less", () => {
    const listed = operations.map((o) => `${o.method} ${o.path}`).sort();
    expect(new Set(listed).size, "GET /v1 lists each operation once").toBe(listed.length);
    expect([...documentOperations().keys()].sort()).toEqual(listed);
  });

  it("gives each operation a unique operationId, its summary, and the scope GET /v1 names", () => {
    const documented = documentOperations();
    const ids = [...documented.values()].map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const operation of operations) {
      const entry = documented.get(`${operation.method} ${operation.path}`);
      expect(entry.operationId, operation.path).toMatch(/^[a-z][A-Za-z]+$/);
      expect(entry.summary).toBe(operation.summary);
      // The document, and a file's download, whose signed link is its authority (docs/attachments.md).
      const isPublic = operation.path === "/v1/openapi.json" || operation.path === "/v1/attachments/:id/content";
      // The settings area and notifications take a signed-in session only; every other keyed operation a key or a session.
      const expected = isPublic
        ? []
        : sessionOnly(operation)
          ? [{ sessionCookie: [] }]
          : [
              { bearerAuth: operation.scope ? [operation.scope] : [] },
              { oauth2: operation.scope ? [operation.scope] : [] },
              { sessionCookie: [] },
            ];
      expect(entry.security, `${operation.method} ${operation.path}`).toEqual(expected);
      // Keyed operations document their 401, scoped ones their 403, operations on an id their 404.
      const statuses = Object.keys(entry.responses);
      if (!isPublic) expect(statuses).toContain("401");
      if (operation.scope) expect(statuses).toContain("403");
      if (operation.path.includes(":id")) expect(statuses).toContain("404");
    }
  });

  it("passes `redocly lint` with redocly.yaml: exit code 0, no errors", () => {
    const dir = mkdtempSync(join(tmpdir(), "opsroom-openapi-"));
    try {
      const file = join(dir, "openapi.json");
      writeFileSync(file, JSON.stringify(document, null, 2));
      const lint = spawnSync("npx", ["redocly", "lint", file, "--format=json"], {
        cwd: ROOT,
        encoding: "utf8",
        timeout: 60_000,
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      });
      const report = JSON.parse(lint.stdout.slice(lint.stdout.indexOf("{"))) as {
        totals: { errors: number };
        problems: Array<{ severity: string; message: string; ruleId: string }>;
      };
      const errors = report.problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId}: ${p.message}`);
      expect(errors).toEqual([]);
      expect(report.totals.errors).toBe(0);
      expect(lint.status, lint.stderr.slice(-500)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
