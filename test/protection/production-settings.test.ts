import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, expectError, expectSuccess, testClientAddress } from "../helpers/api.ts";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { newEmail } from "../helpers/people.ts";
import { PRODUCTION_ORIGIN, startProductionWorker, type ProductionWorker } from "../helpers/production-worker.ts";
import { projectBody } from "../helpers/resources.ts";

// The production settings start and refuse what they must: a Worker with only what a deployment
// sets (test/helpers/production-worker.ts: wrangler.toml's top level, the secrets, an https
// origin). Every other test Worker sees http://127.0.0.1, so the https side of sessions (the
// __Secure- cookie, Secure, an https Origin) is proved here only. Its webhook URLs are tried in
// test/webhooks/production-urls.test.ts, on the same kind of Worker.

let production: ProductionWorker;
let tenant: Tenant;

beforeAll(async () => {
  production = await startProductionWorker();
  tenant = await createTenant();
}, 120_000);

afterAll(async () => {
  await production?.dispose();
}, 60_000);

const SESSION_COOKIE = "__Secure-opsroom.session_token";

/** Signs up a new owner at the production Worker, from a page of its origin: the Set-Cookie line of its session. */
async function signUp(): Promise<string> {
  const response = await fetch(new URL("/auth/sign-up/email", production.url), {
    method: "POST",
    headers: { "content-type": "application/json", origin: PRODUCTION_ORIGIN, "cf-connecting-ip": testClientAddress() },
    body: JSON.stringify({ email: newEmail("production"), password: "correct horse battery staple", name: "Prod Owner" }),
    redirect: "manual",
  });
  expect(response.status, await response.clone().text()).toBe(200);
  const line = response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`));
  expect(line, `a ${SESSION_COOKIE} cookie among ${response.headers.getSetCookie().join(" | ")}`).toBeDefined();
  return line!;
}

const cookieHeader = (setCookie: string) => setCookie.split(";")[0]!;

describe("a Worker with the production settings", () => {
  it("answers a key's calls as usual: GET /v1 200, a create 201", async () => {
    expectSuccess(await api("/v1", { key: tenant.key, baseUrl: production.url }), 200);
    expectSuccess(await api("/v1/projects", { key: tenant.key, body: projectBody(), baseUrl: production.url }), 201);
  });

  it("signs a person in with a __Secure- session cookie, Secure and HttpOnly, and takes their writes from its own https origin", async () => {
    const setCookie = await signUp();
    expect(setCookie).toMatch(/;\s*Secure/i);
    expect(setCookie).toMatch(/;\s*HttpOnly/i);
    const session = await api("/v1/settings/session", { headers: { cookie: cookieHeader(setCookie) }, baseUrl: production.url });
    expectSuccess(session, 200);
    const created = await api("/v1/projects", {
      body: projectBody(),
      headers: { cookie: cookieHeader(setCookie), origin: PRODUCTION_ORIGIN },
      baseUrl: production.url,
    });
    expectSuccess(created, 201);
  });

  it("refuses a write with the session cookie from another origin, its http twin or none: 403 cross_site_request, nothing written", async () => {
    const cookie = cookieHeader(await signUp());
    const session = await api("/v1/settings/session", { headers: { cookie }, baseUrl: production.url });
    const orgId = session.body.data.organisation.id as string;
    const before = await snapshot(orgId);
    const origins: Array<Record<string, string>> = [
      { origin: "https://evil.example" },
      { origin: PRODUCTION_ORIGIN.replace("https:", "http:") },
      { "sec-fetch-site": "cross-site" },
      {},
    ];
    for (const headers of origins) {
      const refused = await api("/v1/projects", { body: projectBody(), headers: { cookie, ...headers }, baseUrl: production.url });
      expectError(refused, 403, "cross_site_request");
    }
    expectNoTrace(before, await snapshot(orgId));
  });

  it("over https takes only the __Secure- cookie: the same session under the http name is 401 unauthorized", async () => {
    const cookie = cookieHeader(await signUp()).replace(/^__Secure-/, "");
    expectError(await api("/v1/settings/session", { headers: { cookie }, baseUrl: production.url }), 401, "unauthorized");
  });
});
