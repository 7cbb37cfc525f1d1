import { describe, expect, inject, it } from "vitest";
import type { Role } from "../../domain/roles.ts";
import { roomsAt } from "../../services/room-client.ts";
import { tasks } from "../../services/tasks.ts";
import { api, expectError, expectSuccess, workerUrl, type Method } from "../helpers/api.ts";
import { testDatabase } from "../helpers/database.ts";
import { insertPerson, keyWith } from "../helpers/fixtures.ts";
import { asPerson, fixturesOf, invite, memberOf, peopleTrace, signUp, type Person } from "../helpers/people.ts";
import { financialEntryBody, insertFinancialEntry, issueBody, riskBody } from "../helpers/project-records.ts";
import { personBody, projectBody, taskBody } from "../helpers/resources.ts";

// A session acts on all of /v1 with the scopes of the person's role in the organisation it acts
// for: a member changes tasks, risks and issues but never sees financial entries nor writes
// personnel, projects or webhooks; owners and admins do everything. Every event names who acted.

const call = (person: Person, method: Method, path: string, body?: unknown) =>
  asPerson(person.cookie, path, { method, ...(body === undefined ? {} : { body }) });

describe("a member's session", () => {
  it("creates and changes tasks, risks and issues, and reads projects and personnel", async () => {
    const owner = await signUp();
    const member = await memberOf(owner, "member");
    const org = fixturesOf(owner.orgId);
    const changes: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
      ["/v1/tasks", await taskBody(org), { status: "in_progress" }],
      ["/v1/risks", await riskBody(org), { status: "mitigated" }],
      ["/v1/issues", await issueBody(org), { status: "resolved" }],
    ];
    for (const [path, body, patch] of changes) {
      const created = expectSuccess(await call(member, "POST", path, body), 201).data;
      expect(expectSuccess(await call(member, "PATCH", `${path}/${created.id}`, patch)).data).toMatchObject({ ...patch, version: 2 });
    }
    for (const path of ["/v1/projects", "/v1/personnel", "/v1/tasks", "/v1/webhooks", "/v1/organisation"])
      expectSuccess(await call(member, "GET", path));
  });

  it("403 insufficient_scope naming the scope on financial entries (read and write), personnel, projects and webhooks writes; nothing written", async () => {
    const owner = await signUp();
    const member = await memberOf(owner, "member");
    const org = fixturesOf(owner.orgId);
    const project = await org.insertProject();
    const entryId = await insertFinancialEntry(org, { project_id: project.id });
    const person = await insertPerson(owner.orgId);
    const refusals: Array<[Method, string, unknown, string]> = [
      ["GET", "/v1/financial-entries", undefined, "financials.read"],
      ["GET", `/v1/financial-entries/${entryId}`, undefined, "financials.read"],
      ["GET", `/v1/projects/${project.id}/financials`, undefined, "financials.read"],
      ["POST", "/v1/financial-entries", await financialEntryBody(org, { projectId: project.id }), "financials.manage"],
      ["PATCH", `/v1/financial-entries/${entryId}`, { amount: "1.00" }, "financials.manage"],
      ["DELETE", `/v1/financial-entries/${entryId}`, undefined, "financials.manage"],
      ["POST", "/v1/personnel", personBody(), "organisation.manage"],
      ["PATCH", `/v1/personnel/${person.id}`, { name: "Renamed" }, "organisation.manage"],
      ["POST", "/v1/projects", projectBody(), "projects.manage"],
      ["PATCH", `/v1/projects/${project.id}`, { name: "Renamed" }, "projects.manage"],
      ["POST", "/v1/webhooks", { url: "http://127.0.0.1:9/hook" }, "webhooks.manage"],
    ];
    const before = await peopleTrace(owner.orgId);
    for (const [method, path, body, scope] of refusals)
      expectError(await call(member, method, path, body), 403, "insufficient_scope", { scope });
    expect(await peopleTrace(owner.orgId)).toEqual(before);
    const me = expectSuccess(await call(member, "GET", "/v1/settings/session")).data;
    expect(me.scopes.filter((s: string) => s.startsWith("financials") || s.endsWith(".manage")).sort()).toEqual([
      "issues.manage",
      "risks.manage",
      "tasks.manage",
    ]);
  });
});

describe("owners and admins", () => {
  for (const role of ["owner", "admin"] as Role[]) {
    it(`an ${role}'s session does everything a member may not`, async () => {
      const owner = await signUp();
      const person = role === "owner" ? owner : await memberOf(owner, "admin");
      const org = fixturesOf(owner.orgId);
      const project = expectSuccess(await call(person, "POST", "/v1/projects", projectBody()), 201).data;
      expectSuccess(await call(person, "PATCH", `/v1/projects/${project.id}`, { name: "Renamed" }));
      const entry = expectSuccess(
        await call(person, "POST", "/v1/financial-entries", await financialEntryBody(org, { projectId: project.id })),
        201,
      ).data;
      expectSuccess(await call(person, "PATCH", `/v1/financial-entries/${entry.id}`, { amount: "2.00" }));
      expect(expectSuccess(await call(person, "GET", "/v1/financial-entries")).data.map((e: { id: string }) => e.id)).toEqual([entry.id]);
      expectSuccess(await call(person, "GET", `/v1/projects/${project.id}/financials`));
      expectSuccess(await call(person, "DELETE", `/v1/financial-entries/${entry.id}`));
      const added = expectSuccess(await call(person, "POST", "/v1/personnel", personBody()), 201).data;
      expectSuccess(await call(person, "PATCH", `/v1/personnel/${added.id}`, { name: "Renamed" }));
      const webhook = expectSuccess(
        await call(person, "POST", "/v1/webhooks", { url: "http://127.0.0.1:9/hook", events: ["project.deleted"] }),
        201,
      ).data;
      expectSuccess(await call(person, "DELETE", `/v1/webhooks/${webhook.id}`));
    });
  }

  it("a write without Origin but with Sec-Fetch-Site: same-origin is accepted (what a browser sends)", async () => {
    const owner = await signUp();
    const created = await api("/v1/projects", { body: projectBody(), headers: { cookie: owner.cookie, "sec-fetch-site": "same-origin" } });
    expectSuccess(created, 201);
  });
});

describe("who acted, on every event", () => {
  it("a session's write names the person; a key's names the key and its application; the system's names opsroom", async () => {
    const owner = await signUp({ name: "Grace Hopper" });
    const org = fixturesOf(owner.orgId);
    const key = await keyWith(owner.orgId, ["tasks.manage"], { application: "Gantt bridge" });
    expectSuccess(await call(owner, "POST", "/v1/tasks", await taskBody(org)), 201);
    expectSuccess(await api("/v1/tasks", { key: key.key, body: await taskBody(org) }), 201);

    // The system path, as the CLI writes (cli/lib/context.ts): the organisation named, every scope.
    const deferred: Array<Promise<unknown>> = [];
    const rooms = roomsAt({ url: inject("realtimeUrl"), secret: inject("realtimeSecret") });
    const ctx = {
      db: testDatabase(),
      actor: { orgId: owner.orgId },
      rooms,
      defer: (work: () => Promise<unknown>) => void deferred.push(work().catch(() => {})),
    };
    await tasks.create({ ctx, input: (await taskBody(org)) as never });
    await Promise.all(deferred);

    const events = expectSuccess(await call(owner, "GET", "/v1/events")).data as Array<{ type: string; actor: unknown }>;
    expect(events.map((e) => [e.type, e.actor])).toEqual([
      ["task.created", { type: "user", id: owner.userId, name: "Grace Hopper" }],
      ["task.created", { type: "key", id: key.id, name: "Gantt bridge" }],
      ["task.created", { type: "system", id: null, name: "opsroom" }],
    ]);
    // A key sees the same actors.
    const byKey = expectSuccess(await api("/v1/events", { key: key.key })).data as Array<{ actor: { type: string } }>;
    expect(byKey.map((e) => e.actor.type)).toEqual(["user", "key", "system"]);
  });

  it("a member's and an admin's changes each name that person", async () => {
    const owner = await signUp();
    const [admin, member] = [await memberOf(owner, "admin"), await memberOf(owner, "member")];
    const org = fixturesOf(owner.orgId);
    const task = expectSuccess(await call(member, "POST", "/v1/tasks", await taskBody(org)), 201).data;
    expectSuccess(await call(admin, "PATCH", `/v1/tasks/${task.id}`, { status: "in_progress" }));
    // (Each joined by invitation first: their people's personnel.created, by themselves.)
    const events = expectSuccess(await call(owner, "GET", "/v1/events?types=task.*")).data as Array<{
      type: string;
      actor: unknown;
      changes: unknown;
    }>;
    expect(events.map((e) => [e.type, e.actor])).toEqual([
      ["task.created", { type: "user", id: member.userId, name: member.name }],
      ["task.updated", { type: "user", id: admin.userId, name: admin.name }],
    ]);
  });
});

describe("a person in two organisations", () => {
  it("accepting switches the session; switching back acts for the other with that role; an organisation they are not in: 404", async () => {
    const [home, away] = [await signUp({ organisationName: "Home" }), await signUp({ organisationName: "Away" })];
    const { token } = await invite(away, home.email, "member");
    expectSuccess(await api("/auth/invitations/accept", { body: { token }, headers: { cookie: home.cookie, origin: workerUrl() } }));

    const acting = async () => expectSuccess(await call(home, "GET", "/v1/settings/session")).data;
    expect(await acting()).toMatchObject({ organisation: { id: away.orgId, name: "Away" }, role: "member" });
    expect((await acting()).organisations).toEqual([
      { id: home.orgId, name: "Home", role: "owner" },
      { id: away.orgId, name: "Away", role: "member" },
    ]);
    // Acting for Away as a member: its tasks, not Home's; no financial entries.
    const awayTask = expectSuccess(await call(home, "POST", "/v1/tasks", await taskBody(fixturesOf(away.orgId))), 201).data;
    expect(awayTask.orgId).toBe(away.orgId);
    expectError(await call(home, "GET", "/v1/financial-entries"), 403, "insufficient_scope");
    expectError(await call(home, "GET", "/v1/settings/api-keys"), 403, "insufficient_role");

    const switched = expectSuccess(await call(home, "POST", "/v1/settings/session/organisation", { orgId: home.orgId })).data;
    expect(switched).toMatchObject({ organisation: { id: home.orgId }, role: "owner" });
    expectSuccess(await call(home, "GET", "/v1/financial-entries"));
    expectError(await call(home, "GET", `/v1/tasks/${awayTask.id}`), 404, "not_found");
    const homeTask = expectSuccess(await call(home, "POST", "/v1/tasks", await taskBody(fixturesOf(home.orgId))), 201).data;
    expect(homeTask.orgId).toBe(home.orgId);

    // Not a member there: 404, and the session still acts for Home.
    const stranger = await signUp();
    const before = await peopleTrace(home.orgId, stranger.orgId);
    expectError(await call(home, "POST", "/v1/settings/session/organisation", { orgId: stranger.orgId }), 404, "not_found");
    expect(await peopleTrace(home.orgId, stranger.orgId)).toEqual(before);
    expect(await acting()).toMatchObject({ organisation: { id: home.orgId } });
    // The switch is the session's own: the Away owner's session is untouched.
    expect(expectSuccess(await call(away, "GET", "/v1/settings/session")).data.organisation.id).toBe(away.orgId);
  });

  it("removed from the organisation the session acts for, it falls back to the other one, never the one they left", async () => {
    const [home, away] = [await signUp(), await signUp()];
    const { token } = await invite(away, home.email, "admin");
    expectSuccess(await api("/auth/invitations/accept", { body: { token }, headers: { cookie: home.cookie, origin: workerUrl() } }));
    expectSuccess(await call(away, "DELETE", `/v1/settings/members/${home.userId}`));
    const me = expectSuccess(await call(home, "GET", "/v1/settings/session")).data;
    expect(me).toMatchObject({ organisation: { id: home.orgId }, role: "owner", organisations: [{ id: home.orgId }] });
    expectError(await call(home, "POST", "/v1/settings/session/organisation", { orgId: away.orgId }), 404, "not_found");
    const awayTasks = expectSuccess(await api("/v1/tasks", { key: (await keyWith(away.orgId, ["tasks.read"])).key })).data;
    const ownTasks = expectSuccess(await call(home, "GET", "/v1/tasks")).data;
    expect(ownTasks.map((t: { orgId: string }) => t.orgId).every((id: string) => id === home.orgId)).toBe(true);
    expect(awayTasks).toEqual([]);
  });
});
