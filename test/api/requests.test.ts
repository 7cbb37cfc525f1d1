import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateApiKey } from "../../domain/crypto/api-keys.ts";
import { api, workerUrl, type ApiOptions } from "../helpers/api.ts";
import { createTenant, scopesWithout, type Tenant } from "../helpers/fixtures.ts";
import { expectRefused, projectBody, refusedCall, taskBody } from "../helpers/resources.ts";

// How bodies are read (docs/api.md "Envelope and errors"): JSON objects only (400 invalid_json), as
// application/json (415), at most 64 KiB (413); and the order of checks: key (401) -> scope
// (403) -> body/params (400) -> existence (404) -> state (412/409). Every refusal writes nothing.

const OVERSIZED = JSON.stringify(projectBody({ description: "x".repeat(65 * 1024) }));

/** Bodies every write endpoint must refuse before looking at their fields. */
const BAD_BODIES: Array<[string, ApiOptions, number, string]> = [
  ["malformed JSON", { rawBody: '{"name": "x",' }, 400, "invalid_json"],
  ["an empty body", { rawBody: "" }, 400, "invalid_json"],
  ["a JSON array", { rawBody: "[]" }, 400, "invalid_json"],
  ["a JSON string", { rawBody: '"name"' }, 400, "invalid_json"],
  ["a JSON number", { rawBody: "42" }, 400, "invalid_json"],
  ["JSON null", { rawBody: "null" }, 400, "invalid_json"],
  ["text/plain", { rawBody: JSON.stringify(projectBody()), headers: { "content-type": "text/plain" } }, 415, "unsupported_media_type"],
  ["a form", { rawBody: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } }, 415, "unsupported_media_type"],
  ["a body over 64 KiB", { rawBody: OVERSIZED }, 413, "payload_too_large"],
];

/** One write route per resource and method, with its own record. */
const WRITES: Array<[string, ApiOptions["method"], (t: Tenant) => Promise<string>]> = [
  ["POST /v1/projects", "POST", async () => "/v1/projects"],
  ["PATCH /v1/tasks/:id", "PATCH", async (t) => `/v1/tasks/${(await t.insertTask()).id}`],
  ["POST /v1/projects/:id/milestones", "POST", async (t) => `/v1/projects/${(await t.insertProject()).id}/milestones`],
  ["POST /v1/personnel", "POST", async () => "/v1/personnel"],
];

describe("request bodies", () => {
  for (const [route, method, path] of WRITES) {
    for (const [label, options, status, code] of BAD_BODIES) {
      it(`${route} with ${label}: ${status} ${code}, nothing written`, async () => {
        const tenant = await createTenant();
        await refusedCall(tenant, await path(tenant), { method, ...options }, status, code);
      });
    }
  }

  it("a body with no Content-Type is 415", async () => {
    const tenant = await createTenant();
    // fetch labels a string body text/plain; bytes go without a Content-Type.
    const send = async () => {
      const response = await fetch(new URL("/v1/projects", workerUrl()), {
        method: "POST",
        body: new TextEncoder().encode(JSON.stringify(projectBody())),
        headers: { authorization: `Bearer ${tenant.key}` },
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: JSON.parse(text), text };
    };
    await expectRefused(tenant.org.id, send, 415, "unsupported_media_type");
  });

  it("application/json with a charset and application/merge-patch+json are JSON", async () => {
    const tenant = await createTenant();
    const task = await tenant.insertTask();
    for (const type of ["application/json; charset=utf-8", "application/merge-patch+json"]) {
      const response = await api(`/v1/tasks/${task.id}`, {
        key: tenant.key,
        method: "PATCH",
        body: { title: type },
        headers: { "content-type": type },
      });
      expect(response.status, `${type}: ${response.text.slice(0, 200)}`).toBe(200);
    }
  });
});

describe("unknown endpoints", () => {
  it("GET /v1/nothing-here with a valid key: 404 not_found in the envelope", async () => {
    const tenant = await createTenant();
    await refusedCall(tenant, "/v1/nothing-here", {}, 404, "not_found");
    await refusedCall(tenant, "/v1/tasks", { method: "PUT", body: {} }, 404, "not_found");
  });
});

describe("order of checks", () => {
  const unknownKey = () => generateApiKey();
  const bodyCases = BAD_BODIES.filter(([label]) => ["malformed JSON", "text/plain", "a body over 64 KiB"].includes(label));

  for (const [label, options] of bodyCases) {
    it(`no key and ${label}: 401 unauthorized`, async () => {
      const tenant = await createTenant();
      await expectRefused(tenant.org.id, () => api("/v1/projects", { method: "POST", ...options }), 401, "unauthorized");
    });

    it(`an unknown key and ${label}: 401 invalid_key`, async () => {
      const tenant = await createTenant();
      await expectRefused(tenant.org.id, () => api("/v1/projects", { key: unknownKey(), method: "POST", ...options }), 401, "invalid_key");
    });

    it(`a revoked key and ${label}: 401 invalid_key`, async () => {
      const tenant = await createTenant();
      const revoked = await tenant.revokedKey();
      await expectRefused(tenant.org.id, () => api("/v1/projects", { key: revoked.key, method: "POST", ...options }), 401, "invalid_key");
    });

    it(`a key without the scope and ${label}: 403 insufficient_scope`, async () => {
      const tenant = await createTenant();
      const key = (await tenant.keyWith(scopesWithout("projects.manage"))).key;
      await expectRefused(tenant.org.id, () => api("/v1/projects", { key, method: "POST", ...options }), 403, "insufficient_scope", {
        scope: "projects.manage",
      });
    });
  }

  it("a read-only key with a body of unknown fields: 403, not 400", async () => {
    const tenant = await createTenant();
    const key = (await tenant.keyWith(["tasks.read"])).key;
    await expectRefused(tenant.org.id, () => api("/v1/tasks", { key, body: { nonsense: true } }), 403, "insufficient_scope", {
      scope: "tasks.manage",
    });
  });

  it("a read-only key with a malformed path id: 403, not 400", async () => {
    const tenant = await createTenant();
    const key = (await tenant.keyWith(["projects.read"])).key;
    await expectRefused(
      tenant.org.id,
      () => api("/v1/projects/xyz", { key, method: "PATCH", body: { name: "x" } }),
      403,
      "insufficient_scope",
    );
  });

  it("a read-only key with a bad query: 403, not 400", async () => {
    const tenant = await createTenant();
    const key = (await tenant.keyWith(["projects.read"])).key;
    await expectRefused(tenant.org.id, () => api("/v1/tasks?limit=0", { key }), 403, "insufficient_scope", { scope: "tasks.read" });
  });

  it("a key with the scope, a bad body and an unknown id: 400, not 404", async () => {
    const tenant = await createTenant();
    await refusedCall(tenant, `/v1/tasks/${randomUUID()}`, { method: "PATCH", body: { status: "finished" } }, 400, "invalid_field", {
      field: "status",
    });
    await refusedCall(tenant, `/v1/projects/${randomUUID()}`, { method: "PATCH", rawBody: "{" }, 400, "invalid_json");
    await refusedCall(tenant, `/v1/projects/${randomUUID()}/milestones`, { body: { name: "x" } }, 400, "missing_field", {
      field: "dueDate",
    });
  });

  it("a valid body and an unknown id with If-Match: 404, not 412", async () => {
    const tenant = await createTenant();
    await refusedCall(
      tenant,
      `/v1/tasks/${randomUUID()}`,
      { method: "PATCH", body: { title: "x" }, headers: { "if-match": '"7"' } },
      404,
      "not_found",
    );
  });

  it("a task create naming another organisation's project and lacking scope: 403 first", async () => {
    const [a, b] = [await createTenant(), await createTenant()];
    const key = (await a.keyWith(["tasks.read"])).key;
    const body = await taskBody(a, { projectId: (await b.insertProject()).id });
    await expectRefused([a.org.id, b.org.id], () => api("/v1/tasks", { key, body }), 403, "insufficient_scope");
  });
});
