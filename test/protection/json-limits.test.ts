import { beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from "../../domain/limits.ts";
import { loadRoutes } from "../../functions/routes/index.ts";
import { api, expectError, expectSuccess, testClientAddress, workerUrl, type ApiOptions, type ApiResponse } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { asPerson, newEmail, peopleTrace, signUp, type Person } from "../helpers/people.ts";
import { taskBody } from "../helpers/resources.ts";

const routes = await loadRoutes();

// Every body the API reads, on every route that takes one (the route registry's, the settings
// area's and /auth's): arrays nested past MAX_JSON_DEPTH, more than MAX_JSON_VALUES values, and
// strings or field names that are not well-formed UTF-16 (a lone surrogate, which Neon's proxy
// refuses) are 400 invalid_field naming where, before anything else reads the body, and write
// nothing. test/protection/properties.test.ts generates such bodies too.

const ID = "019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d10";

/** `depth` arrays, one inside the other, as JSON text (JSON.stringify of it would overflow the stack). */
const nestedArrays = (depth: number) => `${"[".repeat(depth)}0${"]".repeat(depth)}`;

/** The field the API names for arrays nested in `field` of an object at body depth `at`: the first array past the limit. */
const tooDeepAt = (field: string, at = 1) => [field, ...Array<string>(MAX_JSON_DEPTH - at).fill("0")].join(".");

/** The bodies every route refuses, each with the field it must name. */
const BAD_BODIES: Array<{ what: string; text: string; field: string }> = [
  { what: "arrays nested 5,000 deep", text: `{"nested":${nestedArrays(5_000)}}`, field: tooDeepAt("nested") },
  {
    what: `arrays nested ${MAX_JSON_DEPTH + 1} deep, the body included`,
    text: `{"nested":${nestedArrays(MAX_JSON_DEPTH)}}`,
    field: tooDeepAt("nested"),
  },
  {
    what: `${MAX_JSON_VALUES} values and the body`,
    text: `{"wide":[${Array<string>(MAX_JSON_VALUES - 1)
      .fill("0")
      .join(",")}]}`,
    field: "body",
  },
  { what: "a lone surrogate in a value", text: '{"name":"Ada \\ud800"}', field: "name" },
  { what: "a lone low surrogate in a nested value", text: '{"tags":["ok","\\udc00x"]}', field: "tags.1" },
  { what: "a lone surrogate in a field name", text: '{"x\\ud83d":1}', field: "x\ufffd" },
];

const pathOf = (path: string) => path.replace("{externalId}", "ext-1").replace(/\{\w+\}/g, ID);
const bodyRoutes = routes.filter((route) => route.body);

let tenant: Tenant;
let owner: Person;

beforeAll(async () => {
  tenant = await createTenant();
  owner = await signUp();
});

describe("the limits of a JSON body", () => {
  it("are just above what the API's own bodies need: nesting as deep as the limit, and as many values, are read", async () => {
    const ok = await api("/v1/batch", {
      key: tenant.key,
      rawBody: `{"operations":[{"method":"POST","path":"/v1/labels","body":{"name":"x","colour":"#336699","nested":${nestedArrays(MAX_JSON_DEPTH - 4)}}}]}`,
    });
    // Past the limits check, the label's own schema refuses the extra field.
    expectError(ok, 400, "unknown_field", { field: "nested", operation: 0 });
    const wide = await api("/v1/labels", {
      key: tenant.key,
      rawBody: `{"name":"x","colour":"#336699","wide":[${Array<string>(MAX_JSON_VALUES - 4)
        .fill("0")
        .join(",")}]}`,
    });
    expectError(wide, 400, "unknown_field", { field: "wide" });
  });

  for (const route of bodyRoutes) {
    const method = route.method.toUpperCase() as ApiOptions["method"];
    it(`${method} ${route.path}: too deep, too wide or not text is 400 invalid_field naming where; nothing is written`, async () => {
      const send = (rawBody: string): Promise<ApiResponse> =>
        route.auth === "session"
          ? asPerson(owner.cookie, pathOf(route.path), { method, rawBody })
          : api(pathOf(route.path), { key: tenant.key, method, rawBody });
      const orgId = route.auth === "session" ? owner.orgId : tenant.org.id;
      const before = await peopleTrace(orgId);
      for (const bad of BAD_BODIES) expectError(await send(bad.text), 400, "invalid_field", { field: bad.field });
      expect(await peopleTrace(orgId), "nothing written").toEqual(before);
    });
  }

  it("POST /v1/batch: the same inside an operation's body, named from the batch's root", async () => {
    const before = await snapshot(tenant.org.id);
    const batch = (body: string) =>
      api("/v1/batch", { key: tenant.key, rawBody: `{"operations":[{"method":"POST","path":"/v1/tasks","body":${body}}]}` });
    expectError(await batch(`{"title":${nestedArrays(5_000)}}`), 400, "invalid_field", { field: tooDeepAt("operations.0.body.title", 4) });
    expectError(await batch('{"title":"\\ud800"}'), 400, "invalid_field", { field: "operations.0.body.title" });
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("a create that is right in every other way but holds a lone surrogate writes nothing (it was 201, and Neon would refuse it: 503)", async () => {
    const body = JSON.stringify(await taskBody(tenant, { title: "Boiler \ud800 service" }));
    const before = await snapshot(tenant.org.id);
    expect(body).toContain("\\ud800");
    expectError(await api("/v1/tasks", { key: tenant.key, rawBody: body }), 400, "invalid_field", { field: "title" });
    expectNoTrace(before, await snapshot(tenant.org.id));
    expectSuccess(await api("/v1/tasks", { key: tenant.key, rawBody: body.replace("\\ud800", "\\ud83d\\ude42") }), 201);
  });

  it("URLs and headers cannot carry a lone surrogate: the UTF-8 bytes of one are no UTF-8, and stay as sent", async () => {
    const search = expectSuccess(await api("/v1/tasks?q=%ED%A0%80", { key: tenant.key }));
    expect(search.data).toEqual([]);
    expectError(await api("/v1/tasks/%ED%A0%80", { key: tenant.key }), 400, "invalid_field", { field: "id" });
    expectError(
      await api("/v1/labels", { key: tenant.key, body: { name: "x" }, headers: { "idempotency-key": "\u00ed\u00a0\u0080" } }),
      400,
      "invalid_field",
      { field: "Idempotency-Key" },
    );
  });
});

describe("/auth bodies", () => {
  const usersWith = async (email: string) => (await query("select id from users where email = $1", [email])).length;
  const authPostRaw = (path: string, text: string) =>
    fetch(new URL(path, workerUrl()), {
      method: "POST",
      headers: { "content-type": "application/json", origin: workerUrl(), "cf-connecting-ip": testClientAddress() },
      body: text,
    });

  it("sign-up: too deep or not text is 400 invalid_field naming where, and creates no one", async () => {
    // A body of /auth is at most 16 KB, too small to hold MAX_JSON_VALUES values.
    for (const bad of BAD_BODIES.filter((b) => b.field !== "body")) {
      const email = newEmail("limits");
      const response = await authPostRaw(
        "/auth/sign-up/email",
        `{"email":${JSON.stringify(email)},"password":"correct horse battery","name":"Ada",${bad.text.slice(1)}`,
      );
      expect(response.status, bad.what).toBe(400);
      expect(((await response.json()) as any).error, bad.what).toMatchObject({ code: "invalid_field", field: bad.field });
      expect(await usersWith(email), bad.what).toBe(0);
    }
  });

  it("sign-in and accepting an invitation: the same", async () => {
    for (const path of ["/auth/sign-in/email", "/auth/invitations/accept"]) {
      const response = await authPostRaw(path, '{"email":"ada@example.test","password":"x","token":"\\ud800"}');
      expect(response.status, path).toBe(400);
      expect(((await response.json()) as any).error, path).toMatchObject({ code: "invalid_field", field: "token" });
    }
  });
});
