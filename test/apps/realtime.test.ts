import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { asPerson, fixturesOf, memberOf, signUp, type Person } from "../helpers/people.ts";
import { connectToRoom, runSweep, useRoom } from "../helpers/realtime.ts";
import { taskBody } from "../helpers/resources.ts";
import { refusedStatus, socketWith } from "../helpers/sockets.ts";
import { clientForm, oauthTrace, registerApp, tokenRequest, tokensFor, type RegisteredApp } from "./helpers.ts";

// An application on the realtime transport (docs/apps.md "Realtime"): its access token mints a
// realtime token naming its grant, its socket receives the events its grant may read under the
// application's name (acting for the person who allowed it), `excludeOwn` leaves out its own
// writes, and the socket closes with 4401 within 10 s of an uninstall or of its grant's revocation
// (the sweep repeating what a room was not told); the token then opens nothing and mints nothing.

useRoom();

const CLOSED = 4401;
const WITHIN_MS = 10_000;

const mint = (accessToken: string, body: Record<string, unknown> = {}) => api("/v1/realtime/tokens", { key: accessToken, body });

/** An application allowed by `owner` (tasks.manage and projects.read), with its tokens and installation. */
async function installed(owner: Person, appFields: Record<string, unknown> = {}, scope = "tasks.manage projects.read") {
  const app = await registerApp(owner, appFields);
  const tokens = await tokensFor(app, owner, { overrides: { scope } });
  const [row] = await query<{ id: string }>("select id from installations where application_id = $1", [app.id]);
  return { app, tokens, installationId: row!.id };
}

const appActor = (app: RegisteredApp, person: Person) => ({
  type: "app",
  id: app.id,
  name: app.name,
  onBehalfOf: { type: "user", id: person.userId, name: person.name },
});

/** A socket opened with a realtime token minted with the access token, once the room said it is ready. */
async function appSocket(orgId: string, accessToken: string, params: Record<string, string> = {}) {
  const socket = socketWith(orgId, { token: expectSuccess(await mint(accessToken), 201).data.token, ...params });
  await socket.ready;
  return socket;
}

/** The instant (ms since the epoch) a column of the installation or grant was set. */
async function instantOf(sql: string, id: string): Promise<number> {
  const [row] = await query<{ ms: string }>(sql, [id]);
  return Number(row!.ms);
}

describe("an application's realtime token", () => {
  it("mints a token of its grant's read scopes; its socket receives events under the app's name; excludeOwn leaves out its own", async () => {
    const owner = await signUp({ name: "Ada Lovelace" });
    const { app, tokens } = await installed(owner);
    const minted = expectSuccess(await mint(tokens.access_token), 201).data;
    expect(minted.scopes).toEqual(["projects.read", "tasks.read"]);
    expect(minted.organisation).toBe(owner.orgId);

    const all = await connectToRoom(owner.orgId, { token: minted.token });
    const notOwn = await connectToRoom(owner.orgId, { token: minted.token, excludeOwn: "true" });
    const org = fixturesOf(owner.orgId);
    const byApp = expectSuccess(await api("/v1/tasks", { key: tokens.access_token, body: await taskBody(org) }), 201).data;
    const byPerson = expectSuccess(await asPerson(owner.cookie, "/v1/tasks", { body: await taskBody(org) }), 201).data;

    const events = await all.waitFor((seen) => seen.some((e) => e.data.id === byPerson.id));
    const appEvent = events.find((e) => e.type === "task.created" && e.data.id === byApp.id)!;
    expect(appEvent.actor).toEqual(appActor(app, owner));
    expect(events.find((e) => e.data.id === byPerson.id)!.actor).toEqual({ type: "user", id: owner.userId, name: owner.name });
    const others = await notOwn.waitFor((seen) => seen.some((e) => e.data.id === byPerson.id));
    expect(others.filter((e) => e.actor.type === "app")).toEqual([]);

    // The feed, with the access token: the same actor; excludeOwn the same semantics.
    const feed = expectSuccess(await api("/v1/events?types=task.created", { key: tokens.access_token })) as any;
    expect(feed.data.find((e: any) => e.data.id === byApp.id).actor).toEqual(appActor(app, owner));
    const own = expectSuccess(await api("/v1/events?types=task.created&excludeOwn=true", { key: tokens.access_token })) as any;
    expect(own.data.map((e: any) => e.data.id)).toEqual([byPerson.id]);
    // A key's excludeOwn is not the application's: the person's own feed leaves out the person's write, not the app's.
    const persons = expectSuccess(await asPerson(owner.cookie, "/v1/events?types=task.created&excludeOwn=true")) as any;
    expect(persons.data.map((e: any) => e.data.id)).toEqual([byApp.id]);
  });

  it("an application acting as itself (client credentials): its actor has no onBehalfOf, and its socket receives", async () => {
    const owner = await signUp();
    const { app } = await installed(owner);
    const issued = await tokenRequest({ grant_type: "client_credentials", organisation_id: owner.orgId, ...clientForm(app) });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const token = expectSuccess(await mint(issued.body.access_token, { scopes: ["tasks.read"] }), 201).data.token;
    const socket = await connectToRoom(owner.orgId, { token });
    const task = expectSuccess(
      await api("/v1/tasks", { key: issued.body.access_token, body: await taskBody(fixturesOf(owner.orgId)) }),
      201,
    ).data;
    const [event] = await socket.waitFor((seen) => seen.some((e) => e.data.id === task.id));
    expect(event!.actor).toEqual({ type: "app", id: app.id, name: app.name });
  });

  it("refusals: a scope beyond the grant is 403 insufficient_scope naming it and leaves no trace; a revoked or uninstalled token mints nothing", async () => {
    const owner = await signUp();
    const { app, tokens, installationId } = await installed(
      owner,
      { scopes: ["tasks.manage", "projects.read", "risks.read"] },
      "tasks.read",
    );
    const before = await oauthTrace(app.id);
    const refused = expectError(await mint(tokens.access_token, { scopes: ["tasks.read", "projects.read"] }), 403, "insufficient_scope");
    expect(refused.error.scope).toBe("projects.read");
    expectError(await mint(tokens.access_token, { scopes: ["tasks.manage"] }), 400, "invalid_field");
    expect(await oauthTrace(app.id)).toEqual(before);
    expectSuccess(await mint(tokens.access_token, { scopes: ["tasks.read"] }), 201);

    expectSuccess(await asPerson(owner.cookie, `/v1/settings/installations/${installationId}`, { method: "DELETE" }));
    expectError(await mint(tokens.access_token), 401, "invalid_key");
  });
});

describe("the Worker's answer to the room about a grant (POST /internal/rooms/:orgId/sockets)", () => {
  const identify = (orgId: string, grantId: string) =>
    api(`/internal/rooms/${orgId}/sockets`, {
      method: "POST",
      body: { grantId, clientAddress: "2001:db8::9" },
      headers: { authorization: `Bearer ${inject("realtimeSecret")}` },
    });

  it("a live grant: its organisation, installation, application, person and scopes now; a member who leaves takes it; unknown: 401", async () => {
    const owner = await signUp();
    const admin = await memberOf(owner, "admin");
    const app = await registerApp(owner);
    const tokens = await tokensFor(app, admin);
    const [grant] = await query<{ id: string; installation_id: string }>(
      "select g.id, g.installation_id from oauth_grants g join installations i on i.id = g.installation_id where i.application_id = $1",
      [app.id],
    );
    const answer = await identify(owner.orgId, grant!.id);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({
      orgId: owner.orgId,
      keyId: null,
      grantId: grant!.id,
      installationId: grant!.installation_id,
      appId: app.id,
      userId: admin.userId,
      scopes: ["projects.read", "tasks.read", "tasks.manage"],
    });
    expect(tokens.scope).toBe("projects.read tasks.read tasks.manage");
    expectError(await identify(owner.orgId, randomUUID()), 401, "unauthorized");
    expectSuccess(await asPerson(owner.cookie, `/v1/settings/members/${admin.userId}`, { method: "DELETE" }));
    expectError(await identify(owner.orgId, grant!.id), 401, "unauthorized");
  });
});

describe("an application's sockets close when its access ends", () => {
  it("uninstall: its sockets close with 4401 within 10 s, its tokens open none; a person's socket and another app's stay", async () => {
    const owner = await signUp();
    const { tokens, installationId } = await installed(owner);
    const other = await installed(owner, { name: "Other App" });
    const token = expectSuccess(await mint(tokens.access_token), 201).data.token;
    const [doomed, again, bystander] = [
      socketWith(owner.orgId, { token }),
      socketWith(owner.orgId, { token, excludeOwn: "true" }),
      await appSocket(owner.orgId, other.tokens.access_token),
    ];
    const person = socketWith(owner.orgId, {
      token: expectSuccess(await asPerson(owner.cookie, "/v1/realtime/tokens", { body: {} }), 201).data.token,
    });
    await Promise.all([doomed.ready, again.ready, bystander.ready, person.ready]);

    expectSuccess(await asPerson(owner.cookie, `/v1/settings/installations/${installationId}`, { method: "DELETE" }));
    for (const socket of [doomed, again]) {
      const close = await socket.closed;
      expect(close.code).toBe(CLOSED);
      expect(close.reason).toMatch(/uninstalled/);
    }
    const ms =
      doomed.closingAt()! +
      performance.timeOrigin -
      (await instantOf("select extract(epoch from uninstalled_at) * 1000 as ms from installations where id = $1", installationId));
    console.log(`[apps realtime] uninstalled -> the room's close frame (4401) in ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(WITHIN_MS);
    expect(await refusedStatus(owner.orgId, token)).toBe(401);
    expectError(await mint(tokens.access_token), 401, "invalid_key");
    await bystander.pong();
    await person.pong();
  });

  it("a lost after-commit message: the sweep repeats the uninstall to the room, which closes the socket", async () => {
    const owner = await signUp();
    const { tokens, installationId } = await installed(owner);
    const socket = await appSocket(owner.orgId, tokens.access_token);
    // Ended in the database alone, as an uninstall whose message to the room was lost.
    await query("update installations set uninstalled_at = now() where id = $1", [installationId]);
    await query("update oauth_grants set revoked_at = now() where installation_id = $1", [installationId]);
    await socket.pong();
    await runSweep();
    const close = await socket.closed;
    expect(close.code).toBe(CLOSED);
    expect(close.reason).toMatch(/uninstalled/);
  });

  it("the grant revoked (its refresh token revoked, RFC 7009): its sockets close with 4401, another grant's of the same app stays", async () => {
    const owner = await signUp();
    const admin = await memberOf(owner, "admin");
    const { app, tokens } = await installed(owner);
    const second = await tokensFor(app, admin, { overrides: { scope: "tasks.manage projects.read" } });
    const [doomed, stays] = [await appSocket(owner.orgId, tokens.access_token), await appSocket(owner.orgId, second.access_token)];

    const revoked = await tokenRequest({ token: tokens.refresh_token, ...clientForm(app) }, { path: "/oauth/revoke" });
    expect(revoked.status).toBe(200);
    const close = await doomed.closed;
    expect(close.code).toBe(CLOSED);
    expect(close.reason).toMatch(/authorization/);
    await stays.pong();
  });

  it("a reused refresh token revokes its grant: its socket closes with 4401", async () => {
    const owner = await signUp();
    const { app, tokens } = await installed(owner);
    const socket = await appSocket(owner.orgId, tokens.access_token);
    const refresh = { grant_type: "refresh_token", refresh_token: tokens.refresh_token, ...clientForm(app) };
    expect((await tokenRequest(refresh)).status).toBe(200);
    const reused = await tokenRequest(refresh);
    expect(reused.body.error).toBe("invalid_grant");
    expect((await socket.closed).code).toBe(CLOSED);
  });
});
