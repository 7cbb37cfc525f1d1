import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateApiKey, hashApiKey } from "../../domain/crypto/api-keys.ts";
import { api, expectError, expectSuccess, workerUrl, type ApiResponse } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { projectBody } from "../helpers/resources.ts";

// Hardening: a request id on every response of the Worker and in every error body;
// keys never echoed, stored only as a hash; CORS fit for a browser calling with a bearer key;
// security headers; a webhook's signing secret answered once. (That the Worker never logs a key is
// checked where the Worker's output can be captured: test/protection/database-failures.test.ts.)
// The console's static files are served by Workers assets before the Worker runs; their headers
// are the console's own (console/_headers).

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** One response of each kind the Worker gives, for the checks that hold for all of them. */
async function responsesOfEveryKind(): Promise<Array<[string, ApiResponse]>> {
  const tenant = await createTenant({ rateLimit: 1 });
  const limited = await createTenant({ rateLimit: 1 });
  await api("/v1", { key: limited.key });
  const fresh = await createTenant();
  return [
    ["200 GET /v1", await api("/v1", { key: tenant.key })],
    ["201 POST /v1/projects", await api("/v1/projects", { key: fresh.key, body: projectBody() })],
    ["400 invalid_json", await api("/v1/projects", { key: fresh.key, rawBody: "{" })],
    ["400 invalid query", await api("/v1/tasks?limit=0", { key: fresh.key })],
    ["401 no key", await api("/v1/tasks")],
    ["401 unknown key", await api("/v1/tasks", { key: generateApiKey() })],
    ["403", await api("/v1/webhooks", { key: (await fresh.keyWith(["tasks.read"])).key })],
    ["404 record", await api(`/v1/tasks/${randomUUID()}`, { key: fresh.key })],
    ["404 no such endpoint", await api("/v1/nothing-here", { key: fresh.key })],
    ["413", await api("/v1/projects", { key: fresh.key, rawBody: JSON.stringify(projectBody({ description: "x".repeat(70_000) })) })],
    ["415", await api("/v1/projects", { key: fresh.key, rawBody: "{}", headers: { "content-type": "text/plain" } })],
    ["429", await api("/v1", { key: limited.key })],
    ["200 GET /v1/openapi.json (no key)", await api("/v1/openapi.json")],
    ["200 GET /docs (HTML)", await api("/docs")],
  ];
}

describe("request ids", () => {
  it("every response of the Worker carries X-Request-Id; an error body's requestId is the same", async () => {
    const seen = new Set<string>();
    for (const [label, response] of await responsesOfEveryKind()) {
      const id = response.headers.get("x-request-id");
      expect(id, label).toMatch(UUID);
      expect(seen.has(id!), `${label}: a new id for each request`).toBe(false);
      seen.add(id!);
      if (response.status >= 400) expect(response.body.error.requestId, label).toBe(id);
    }
  });

  it("the CORS preflight carries one too", async () => {
    const response = await preflight("/v1/tasks", "POST");
    expect(response.headers.get("x-request-id")).toMatch(UUID);
  });

  it("a valid incoming X-Request-Id is kept, in the header and the error body", async () => {
    const id = `client-${randomUUID()}`;
    const ok = await api("/v1/openapi.json", { headers: { "x-request-id": id } });
    expect(ok.headers.get("x-request-id")).toBe(id);
    const refused = await api("/v1/tasks", { headers: { "x-request-id": id } });
    expectError(refused, 401, "unauthorized", { requestId: id });
    expect(refused.headers.get("x-request-id")).toBe(id);
  });

  it("an unusable incoming one (spaces, other characters, over 255) is replaced, never echoed", async () => {
    for (const sent of ["has spaces", "semi;colon", "<script>", "r".repeat(256), "é-latin1"]) {
      const response = await api("/v1/tasks", { headers: { "x-request-id": Buffer.from(sent, "utf8").toString("latin1") } });
      const id = response.headers.get("x-request-id");
      expect(id, sent).toMatch(UUID);
      expect(response.body.error.requestId).toBe(id);
      expect(response.text).not.toContain(sent);
    }
  });
});

describe("API keys", () => {
  it("are never echoed: not by GET /v1, not in any error about them", async () => {
    const tenant = await createTenant();
    const revoked = await tenant.revokedKey();
    const hash = hashApiKey(tenant.key);
    const typo = `${tenant.key.slice(0, -1)}${tenant.key.endsWith("A") ? "B" : "A"}`;
    const responses = [
      await api("/v1", { key: tenant.key }),
      await api("/v1/organisation", { key: tenant.key }),
      await api("/v1/tasks", { key: typo }),
      await api("/v1/tasks", { headers: { authorization: tenant.key } }),
      await api("/v1/tasks", { headers: { authorization: `Basic ${tenant.key}` } }),
      await api("/v1/tasks", { key: revoked.key }),
      await api("/v1/tasks", { key: `${tenant.key} extra` }),
      await api("/v1/events", { key: tenant.key }),
    ];
    for (const response of responses) {
      for (const secret of [tenant.key, typo, revoked.key, hash, tenant.key.slice(4)]) {
        expect(response.text, `${response.status} echoes a key`).not.toContain(secret);
        for (const [name, value] of response.headers) expect(value, `header ${name}`).not.toContain(secret);
      }
    }
  });

  it("are stored only as a SHA-256 hash: the key is in no table of the database", async () => {
    const tenant = await createTenant();
    // Use the key for a write, so every table a call touches has had its chance to keep it.
    expectSuccess(await api("/v1/projects", { key: tenant.key, body: projectBody(), headers: { "idempotency-key": "hardening-1" } }), 201);
    const [row] = await query<{ key_hash: string; prefix: string }>("select key_hash, prefix from api_keys where id = $1", [tenant.keyId]);
    expect(row!.key_hash).toBe(hashApiKey(tenant.key));
    expect(tenant.key.startsWith(row!.prefix)).toBe(true);
    expect(row!.prefix.length).toBeLessThan(16);
    const tables = await query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
    );
    const secretPart = tenant.key.slice(row!.prefix.length);
    for (const { table_name } of tables) {
      const [found] = await query<{ n: number }>(`select count(*)::int as n from "${table_name}" t where strpos(t::text, $1) > 0`, [
        secretPart,
      ]);
      expect(found!.n, `table ${table_name} holds the key`).toBe(0);
    }
  });
});

async function preflight(path: string, method: string, headers = "authorization, content-type, if-match, idempotency-key") {
  const response = await fetch(new URL(path, workerUrl()), {
    method: "OPTIONS",
    headers: { origin: "https://app.example.com", "access-control-request-method": method, "access-control-request-headers": headers },
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const list = (value: string | null) =>
  (value ?? "")
    .toLowerCase()
    .split(/\s*,\s*/)
    .filter(Boolean);

describe("CORS, for a browser calling with a bearer key", () => {
  for (const [path, method] of [
    ["/v1/tasks", "POST"],
    [`/v1/tasks/${randomUUID()}`, "PATCH"],
    [`/v1/projects/${randomUUID()}`, "DELETE"],
    ["/v1", "GET"],
  ] as const) {
    it(`the preflight of ${method} ${path.replace(/[0-9a-f-]{36}/, ":id")} allows the method and Authorization, Content-Type, If-Match, Idempotency-Key`, async () => {
      const response = await preflight(path, method);
      expect(response.status).toBe(204);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(list(response.headers.get("access-control-allow-methods"))).toContain(method.toLowerCase());
      expect(list(response.headers.get("access-control-allow-headers"))).toEqual(
        expect.arrayContaining(["authorization", "content-type", "if-match", "idempotency-key"]),
      );
      expect(Number(response.headers.get("access-control-max-age"))).toBeGreaterThan(0);
      // Keys travel in Authorization, never cookies: no credentials mode, and none may be allowed with "*".
      expect(response.headers.get("access-control-allow-credentials")).toBeNull();
    });
  }

  it("a preflight needs no key and writes nothing", async () => {
    const tenant = await createTenant();
    const before = await snapshot(tenant.org.id);
    expect((await preflight("/v1/projects", "POST")).status).toBe(204);
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("answers, errors included, let the browser read ETag, Link, RateLimit-*, Retry-After, X-Request-Id, Idempotent-Replayed", async () => {
    const origin = { origin: "https://app.example.com" };
    const tenant = await createTenant();
    for (let i = 0; i < 2; i++) await tenant.insertProject();
    const responses = [
      await api("/v1/projects?limit=1", { key: tenant.key, headers: origin }),
      await api("/v1/tasks", { headers: origin }),
      await api(`/v1/tasks/${randomUUID()}`, { key: tenant.key, headers: origin }),
    ];
    expect(responses[0]!.headers.get("link")).toContain('rel="next"');
    for (const response of responses) {
      expect(response.headers.get("access-control-allow-origin"), String(response.status)).toBe("*");
      expect(list(response.headers.get("access-control-expose-headers")), String(response.status)).toEqual(
        expect.arrayContaining([
          "etag",
          "link",
          "ratelimit-limit",
          "ratelimit-remaining",
          "ratelimit-reset",
          "retry-after",
          "x-request-id",
          "idempotent-replayed",
        ]),
      );
    }
  });
});

describe("security headers", () => {
  const EXPECTED: Record<string, RegExp> = {
    "x-content-type-options": /^nosniff$/,
    "x-frame-options": /^(DENY|SAMEORIGIN)$/,
    "strict-transport-security": /max-age=\d{7,}/,
    "referrer-policy": /^no-referrer$/,
    "cross-origin-opener-policy": /^same-origin$/,
    "x-permitted-cross-domain-policies": /^none$/,
  };

  it("on every kind of response of the Worker", async () => {
    for (const [label, response] of await responsesOfEveryKind()) {
      for (const [name, pattern] of Object.entries(EXPECTED)) expect(response.headers.get(name), `${label}: ${name}`).toMatch(pattern);
      expect(response.headers.get("x-powered-by"), label).toBeNull();
      if (label !== "200 GET /docs (HTML)") expect(response.headers.get("content-type"), label).toMatch(/^application\/json/);
    }
  });

  it("on the preflight too", async () => {
    const response = await preflight("/v1/tasks", "POST");
    for (const [name, pattern] of Object.entries(EXPECTED)) expect(response.headers.get(name), name).toMatch(pattern);
  });
});

describe("a webhook's signing secret", () => {
  it("is answered by the create call and by no other call", async () => {
    const tenant = await createTenant();
    // A closed loopback port: nothing leaves the machine.
    const createdResponse = await api("/v1/webhooks", {
      key: tenant.key,
      body: { url: "http://127.0.0.1:9/hardening", events: ["task.*"] },
    });
    const webhook = expectSuccess(createdResponse, 201).data;
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{24,}$/);
    const secret: string = webhook.secret;
    const secretBody = secret.slice("whsec_".length);

    const path = `/v1/webhooks/${webhook.id}`;
    const later = [
      await api(path, { key: tenant.key }),
      await api("/v1/webhooks", { key: tenant.key }),
      await api(path, { key: tenant.key, method: "PATCH", body: { description: "changed" } }),
      await api(path, { key: tenant.key, method: "PATCH", body: { url: "http://127.0.0.1:9/elsewhere" } }),
      await api(`${path}/deliveries`, { key: tenant.key }),
      await api("/v1/events", { key: tenant.key }),
      await api("/v1", { key: tenant.key }),
      // A second create: its own secret, never the first one.
      await api("/v1/webhooks", { key: tenant.key, body: { url: "http://127.0.0.1:9/second" } }),
      await api(path, { key: tenant.key, method: "DELETE" }),
    ];
    for (const response of later) {
      expect(response.status, response.text.slice(0, 200)).toBeLessThan(300);
      expect(response.text, `${response.status}: the secret again`).not.toContain(secretBody);
    }
    for (const response of later.slice(0, 4)) {
      const records = Array.isArray(response.body.data) ? response.body.data : [response.body.data];
      for (const record of records) expect(record).not.toHaveProperty("secret");
    }
    expect(later[7]!.body.data.secret).toMatch(/^whsec_/);
  });
});
