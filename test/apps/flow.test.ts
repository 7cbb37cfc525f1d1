import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess, workerUrl } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { insertPerson, insertProject } from "../helpers/fixtures.ts";
import { asPerson, memberOf, signUp } from "../helpers/people.ts";
import { authorizationRequest, authorize, postConsent, registerApp, tokensFor } from "./helpers.ts";

// The authorization-code flow end to end through the real stack: the authorize redirect to the
// consent page, the page's two calls, the exchange, and the access token on /v1 as a key with the
// granted scopes, writing under the application's own name on behalf of the person.

describe("the authorization-code flow", () => {
  it("authorize sends the person to the consent page with the same query; consent lists the organisations and scopes", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const { params } = authorizationRequest(app);
    const response = await authorize(params);
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location")!, workerUrl());
    expect(location.pathname).toBe("/consent.html");
    expect(Object.fromEntries(location.searchParams)).toEqual(params);
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("cache-control")).toBe("no-store");

    const view = await fetch(new URL(`/oauth/consent${location.search}`, workerUrl()), { headers: { cookie: owner.cookie } });
    expect(view.status).toBe(200);
    expect(await view.json()).toEqual({
      application: { name: "Acme Planner", clientId: app.clientId, redirectHost: "client.example.com", dynamic: false },
      scopes: [
        { scope: "projects.read", label: expect.any(String) },
        { scope: "tasks.read", label: expect.any(String) },
        { scope: "tasks.manage", label: expect.any(String) },
      ],
      organisations: [
        {
          id: owner.orgId,
          name: expect.any(String),
          role: "owner",
          grantable: ["projects.read", "tasks.read", "tasks.manage"],
          allowed: true,
        },
      ],
    });
    const anonymous = await fetch(new URL(`/oauth/consent${location.search}`, workerUrl()));
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as any).error.code).toBe("unauthorized");
  });

  it("allow installs the app; the code becomes tokens; the token calls /v1 as the app on behalf of the person", async () => {
    const owner = await signUp({ name: "Grace Hopper" });
    const app = await registerApp(owner);
    const tokens = await tokensFor(app, owner);
    expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "projects.read tasks.read tasks.manage" });
    expect(tokens.access_token).toMatch(/^opsroom_at_/);
    expect(tokens.refresh_token).toMatch(/^opsroom_rt_/);

    const self = expectSuccess(await api("/v1", { key: tokens.access_token })) as any;
    expect(self.application).toBe("Acme Planner");
    expect(self.scopes.map((s: { scope: string }) => s.scope)).toEqual(["projects.read", "tasks.read", "tasks.manage"]);
    // Scopes as a key's: no organisation.read.
    expectError(await api("/v1/organisation", { key: tokens.access_token }), 403, "insufficient_scope", { scope: "organisation.read" });

    const project = await insertProject(owner.orgId);
    const person = await insertPerson(owner.orgId);
    const created = await api("/v1/tasks", {
      key: tokens.access_token,
      body: { title: "Fit the boiler", projectId: project.id, assigneeId: person.id, dueDate: "2026-12-01" },
      headers: { "idempotency-key": "first-task" },
    });
    expect(created.status, created.text).toBe(201);
    const replayed = await api("/v1/tasks", {
      key: tokens.access_token,
      body: { title: "Fit the boiler", projectId: project.id, assigneeId: person.id, dueDate: "2026-12-01" },
      headers: { "idempotency-key": "first-task" },
    });
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(replayed.body.data.id).toBe(created.body.data.id);

    const events = expectSuccess(await asPerson(owner.cookie, "/v1/events?after=0")).data as any[];
    expect(events.at(-1).actor).toEqual({
      type: "app",
      id: app.id,
      name: "Acme Planner",
      onBehalfOf: { type: "user", id: owner.userId, name: "Grace Hopper" },
    });

    const installations = expectSuccess(await asPerson(owner.cookie, "/v1/settings/installations")).data as any[];
    expect(installations).toEqual([
      {
        id: expect.any(String),
        application: { id: app.id, name: "Acme Planner", clientId: app.clientId },
        scopes: ["projects.read", "tasks.read", "tasks.manage"],
        installedBy: { id: owner.userId, name: "Grace Hopper" },
        installedAt: expect.any(String),
        lastUsedAt: expect.any(String),
      },
    ]);
    // Only hashes are stored.
    const stored = JSON.stringify(await query(`select * from oauth_tokens`));
    expect(stored).not.toContain(tokens.access_token);
    expect(stored).not.toContain(tokens.refresh_token);
  });

  it("a member grants at most what their role holds; another organisation's app installs by consent there", async () => {
    const integrator = await signUp();
    const app = await registerApp(integrator, { scopes: ["tasks.manage", "financials.read"] });
    const customer = await signUp();
    const member = await memberOf(customer, "member");
    const tokens = await tokensFor(app, member, { overrides: { scope: "tasks.manage financials.read" } });
    // A member holds no financials.read.
    expect(tokens.scope).toBe("tasks.read tasks.manage");
    const self = expectSuccess(await api("/v1", { key: tokens.access_token })) as any;
    expect(self.organisation).toBe(customer.orgId);
  });

  it("deny sends the person back with access_denied, state and iss; nothing is installed", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const { params } = authorizationRequest(app);
    const response = await postConsent(owner, { ...params, orgId: owner.orgId, decision: "deny" });
    expect(response.status).toBe(200);
    const redirectTo = new URL(((await response.json()) as any).redirectTo);
    expect(`${redirectTo.origin}${redirectTo.pathname}`).toBe(app.redirectUri);
    expect(Object.fromEntries(redirectTo.searchParams)).toMatchObject({
      error: "access_denied",
      state: params.state,
      iss: workerUrl().replace(/\/$/, ""),
    });
    expect(await query(`select * from installations where application_id = $1`, [app.id])).toEqual([]);
  });
});
