import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess, workerUrl } from "../helpers/api.ts";
import { auditRows } from "../helpers/audit.ts";
import { query } from "../helpers/database.ts";
import { asPerson, fixturesOf, memberOf, signUp, type Person } from "../helpers/people.ts";
import { runSweep, useRoom } from "../helpers/realtime.ts";
import { taskBody } from "../helpers/resources.ts";
import { socketWith } from "../helpers/sockets.ts";
import { pollUntil } from "../helpers/wait.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { postMcp } from "../mcp/helpers.ts";
import { loggedAttempts, registerWebhook, waitForLogged } from "../webhooks/helpers.ts";
import { clientForm, registerApp, tokenRequest, tokensFor, type RegisteredApp } from "./helpers.ts";

// An installation never outlives the authority that made it (docs/apps.md "Whose authority an
// installation rests on"), the finding of the fourth security probe: a member installed a
// confidential application, the owner removed the member, and client credentials still issued
// tokens holding the member role's write scopes. Now removing the installer, their leaving, or a
// role that no longer holds what the installation holds ends it in the same statement, and within
// 10 s on every transport: REST and /mcp refuse its tokens, client credentials issue none, its
// sockets close (4401), the webhooks it registered are off and receive nothing more.

useRoom();

const WITHIN_MS = 10_000;

/** Client credentials for `app` in `orgId` (for `resource`, when given): the answer. */
const clientCredentials = (app: RegisteredApp, orgId: string, resource?: string) =>
  tokenRequest({ grant_type: "client_credentials", organisation_id: orgId, ...(resource ? { resource } : {}), ...clientForm(app) });

/** The live installation of `app` in `orgId`, with who it rests on. */
async function installationOf(app: RegisteredApp, orgId: string) {
  const [row] = await query<{ id: string; installed_by_user_id: string; uninstalled_at: Date | null }>(
    "select id, installed_by_user_id, uninstalled_at from installations where application_id = $1 and org_id = $2",
    [app.id, orgId],
  );
  return row!;
}

/** A tool call on /mcp with `token`: the HTTP status, and the tool's envelope when it answered one. */
async function mcpUpdateTask(token: string, id: string) {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "updateTask", arguments: { id, status: "in_progress" } },
  });
  return postMcp(body, token, { "mcp-protocol-version": "2025-06-18" });
}

describe("an installation rests on its installer", () => {
  it("a member's installation ends when the owner removes them: REST, /mcp, client credentials, its socket, within 10 s", async () => {
    const owner = await signUp({ name: "Grace Hopper" });
    const member = await memberOf(owner, "member");
    // The application is another organisation's (any owner may register one); the member installs it here.
    const app = await registerApp(await signUp(), { scopes: ["tasks.manage", "projects.read", "risks.manage"] });
    await tokensFor(app, member, { orgId: owner.orgId, overrides: { scope: "tasks.manage projects.read risks.manage" } });
    expect((await installationOf(app, owner.orgId)).installed_by_user_id).toBe(member.userId);

    const issued = await clientCredentials(app, owner.orgId);
    expect(issued.status).toBe(200);
    const restToken = issued.body.access_token as string;
    const mcp = await clientCredentials(app, owner.orgId, `${workerUrl()}/mcp`);
    expect(mcp.status).toBe(200);
    const task = expectSuccess(await asPerson(owner.cookie, "/v1/tasks", { body: await taskBody(fixturesOf(owner.orgId)) }), 201).data;
    expectSuccess(await api(`/v1/tasks/${task.id}`, { key: restToken, method: "PATCH", body: { status: "in_progress" } }));
    expect((await mcpUpdateTask(mcp.body.access_token, task.id)).status).toBe(200);
    const minted = expectSuccess(await api("/v1/realtime/tokens", { key: restToken, body: {} }), 201).data;
    const socket = socketWith(owner.orgId, { token: minted.token });
    await socket.ready;

    const removedAt = performance.now();
    expectSuccess(await asPerson(owner.cookie, `/v1/settings/members/${member.userId}`, { method: "DELETE" }));
    expect((await installationOf(app, owner.orgId)).uninstalled_at).not.toBeNull();
    expectError(await api(`/v1/tasks/${task.id}`, { key: restToken, method: "PATCH", body: { status: "todo" } }), 401, "invalid_key");
    expect((await mcpUpdateTask(mcp.body.access_token, task.id)).status).toBe(401);
    const refused = await clientCredentials(app, owner.orgId);
    expect(refused).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    const close = await socket.closed;
    expect(close.code).toBe(4401);
    const ms = performance.now() - removedAt;
    expect(ms).toBeLessThan(WITHIN_MS);
    console.log(
      `[installer authority] member removed -> REST, /mcp and client credentials refused, the socket's close frame: ${ms.toFixed(0)} ms`,
    );

    // Recorded: the member removed, then the installation that ended with them, by the owner.
    const [removed, ended] = (await auditRows(owner.orgId)).slice(-2);
    expect(removed!.action).toBe("member.removed");
    expect(ended).toMatchObject({
      action: "application.installation_ended",
      actor: { type: "user", id: owner.userId },
      target: { type: "installation", name: app.name },
      changes: { installerRole: { from: "member", to: null } },
    });
    expect(Number(ended!.sequence)).toBe(Number(removed!.sequence) + 1);
  }, 60_000);

  // Each way the installer's authority ends, on every transport at once: the application's own
  // tokens (client credentials) on REST and /mcp, the person's grant, client credentials asked
  // again, a socket of each grant, and the webhook the application registered. The installer is an
  // admin, so the installation may hold webhooks.manage (a member's role does not) and a demotion
  // to member ends it. (opsroom has no deactivated account: a person's authority in an
  // organisation is their membership and role, so removal, leaving and demotion are the ways it
  // ends through the API; a membership or account deleted by another hand is the last test's.)
  const WAYS = {
    removed: {
      by: "owner",
      act: (owner: Person, admin: Person) => asPerson(owner.cookie, `/v1/settings/members/${admin.userId}`, { method: "DELETE" }),
      action: "member.removed",
      to: null,
    },
    leaves: {
      by: "admin",
      act: (_owner: Person, admin: Person) => asPerson(admin.cookie, `/v1/settings/members/${admin.userId}`, { method: "DELETE" }),
      action: "member.left",
      to: null,
    },
    demoted: {
      by: "owner",
      act: (owner: Person, admin: Person) =>
        asPerson(owner.cookie, `/v1/settings/members/${admin.userId}`, { method: "PATCH", body: { role: "member" } }),
      action: "member.role_changed",
      to: "member",
    },
  } as const;

  it.each(Object.keys(WAYS) as (keyof typeof WAYS)[])(
    "the installer %s: within 10 s REST, /mcp, client credentials, both grants' sockets and the application's webhooks are refused or off",
    async (way) => {
      const { act, action, to, by } = WAYS[way];
      const owner = await signUp();
      const admin = await memberOf(owner, "admin");
      const scope = "tasks.manage projects.read webhooks.manage";
      const app = await registerApp(await signUp(), { scopes: scope.split(" ") });
      const person = await tokensFor(app, admin, { orgId: owner.orgId, overrides: { scope } });
      const own = (await clientCredentials(app, owner.orgId)).body.access_token as string;
      const mcp = (await clientCredentials(app, owner.orgId, `${workerUrl()}/mcp`)).body.access_token as string;
      const org = fixturesOf(owner.orgId);
      const task = expectSuccess(await asPerson(owner.cookie, "/v1/tasks", { body: await taskBody(org) }), 201).data;
      expectSuccess(await api(`/v1/tasks/${task.id}`, { key: own, method: "PATCH", body: { status: "in_progress" } }));
      expect((await mcpUpdateTask(mcp, task.id)).status).toBe(200);
      expectSuccess(await api("/v1/tasks", { key: person.access_token }));
      // The webhooks the application registered, as itself and for the admin, and a person's beside them to show events still go out.
      const receivers = [await startReceiver("app"), await startReceiver("app for the admin")];
      const hooks = [
        await registerWebhook(own, receivers[0]!, { events: ["task.*"] }),
        await registerWebhook(person.access_token, receivers[1]!, { events: ["task.*"] }),
      ];
      const sentinel = await startReceiver("person");
      const personHook = expectSuccess(
        await asPerson(owner.cookie, "/v1/webhooks", { body: { url: sentinel.url, events: ["task.*"] } }),
        201,
      ).data;
      sentinel.useSecret(personHook.secret);
      const first = expectSuccess(await asPerson(owner.cookie, "/v1/tasks", { body: await taskBody(org) }), 201).data;
      for (const receiver of receivers) await receiver.waitFor((d) => d.some((x) => x.event.data.id === first.id), 20_000);
      const sockets = [];
      for (const key of [own, person.access_token]) {
        const minted = expectSuccess(await api("/v1/realtime/tokens", { key, body: {} }), 201).data;
        const socket = socketWith(owner.orgId, { token: minted.token });
        await socket.ready;
        sockets.push(socket);
      }

      const endedAt = performance.now();
      expectSuccess(await act(owner, admin));
      expectError(await api(`/v1/tasks/${task.id}`, { key: own, method: "PATCH", body: { status: "todo" } }), 401, "invalid_key");
      expectError(await api("/v1/tasks", { key: person.access_token }), 401, "invalid_key");
      expect((await mcpUpdateTask(mcp, task.id)).status).toBe(401);
      expect((await clientCredentials(app, owner.orgId)).body).toMatchObject({ error: "invalid_grant" });
      const refreshed = await tokenRequest({ grant_type: "refresh_token", refresh_token: person.refresh_token, ...clientForm(app) });
      expect(refreshed.body).toMatchObject({ error: "invalid_grant" });
      for (const hook of hooks)
        expect(expectSuccess(await asPerson(owner.cookie, `/v1/webhooks/${hook.id}`)).data).toMatchObject({
          enabled: false,
          disabledReason: expect.stringMatching(/installed the application/),
        });
      for (const socket of sockets) expect((await socket.closed).code).toBe(4401);
      const ms = performance.now() - endedAt;
      expect(ms).toBeLessThan(WITHIN_MS);
      console.log(`[installer authority] installer ${way} -> every transport refused or closed: ${ms.toFixed(0)} ms`);

      // The next change reaches the person's webhook; the application's are not attempted.
      const counts = receivers.map((receiver) => receiver.deliveries.length);
      const later = expectSuccess(await asPerson(owner.cookie, "/v1/tasks", { body: await taskBody(org) }), 201).data;
      const [event] = await query<{ id: string }>("select id from events where data->>'id' = $1", [later.id]);
      await waitForLogged(owner.orgId, personHook.id, (attempts) => attempts.some((a) => a.eventId === event!.id));
      for (const hook of hooks) expect((await loggedAttempts(owner.orgId, hook.id)).filter((a) => a.eventId === event!.id)).toEqual([]);
      expect(receivers.map((receiver) => receiver.deliveries.length)).toEqual(counts);

      // Recorded: the member change, then the installation it ended, by whoever made the change.
      const rows = await auditRows(owner.orgId);
      const ended = rows.find((row) => row.action === "application.installation_ended")!;
      expect(rows[rows.indexOf(ended) - 1]!.action).toBe(action);
      expect(ended).toMatchObject({
        actor: { type: "user", id: (by === "owner" ? owner : admin).userId },
        target: { type: "installation", name: app.name },
        changes: { installerRole: { from: "admin", to } },
      });
    },
    60_000,
  );

  it("a role that still holds every scope it holds ends nothing; an admin's consent widening a member's installation makes it rest on the admin", async () => {
    const owner = await signUp();
    const [second, member, admin] = [await memberOf(owner, "owner"), await memberOf(owner, "member"), await memberOf(owner, "admin")];
    const app = await registerApp(owner, { scopes: ["tasks.manage", "projects.manage"] });
    // An owner demoted to admin: the admin role holds every scope an owner's does.
    await tokensFor(app, second, { orgId: owner.orgId, overrides: { scope: "tasks.manage projects.manage" } });
    expectSuccess(await asPerson(owner.cookie, `/v1/settings/members/${second.userId}`, { method: "PATCH", body: { role: "admin" } }));
    expect((await installationOf(app, owner.orgId)).uninstalled_at).toBeNull();
    expect((await clientCredentials(app, owner.orgId)).status).toBe(200);

    const other = await registerApp(owner, { scopes: ["tasks.manage", "projects.manage"] });
    await tokensFor(other, member, { orgId: owner.orgId, overrides: { scope: "tasks.manage" } });
    await tokensFor(other, admin, { orgId: owner.orgId, overrides: { scope: "tasks.manage projects.manage" } });
    expect((await installationOf(other, owner.orgId)).installed_by_user_id).toBe(admin.userId);
    expectSuccess(await asPerson(owner.cookie, `/v1/settings/members/${member.userId}`, { method: "DELETE" }));
    expect((await installationOf(other, owner.orgId)).uninstalled_at).toBeNull();
    expect((await clientCredentials(other, owner.orgId)).status).toBe(200);
  });

  // The other paths: the membership deleted, or the person's account (set null as installer), by
  // another hand than the API's, which has no account deletion or deactivation.
  const OTHER_PATHS = {
    "a membership deleted in the database": ["delete from memberships where user_id = $1 and org_id = $2", 2],
    "the installer's account deleted in the database": ["delete from users where id = $1", 1],
  } as const;

  it.each(Object.keys(OTHER_PATHS) as (keyof typeof OTHER_PATHS)[])(
    "by another path (%s): its tokens are refused at once, and the sweep ends it",
    async (path) => {
      const [statement, params] = OTHER_PATHS[path];
      const owner = await signUp();
      const member = await memberOf(owner, "member");
      const app = await registerApp(owner);
      const tokens = await tokensFor(app, owner);
      const installation = await installationOf(app, owner.orgId);
      // An installation resting on the member (as one made before the rule might), whose membership then goes behind the API's back.
      await query("update installations set installed_by_user_id = $1 where id = $2", [member.userId, installation.id]);
      expectSuccess(await api("/v1/tasks", { key: tokens.access_token }));
      await query(statement, [member.userId, owner.orgId].slice(0, params));
      expectError(await api("/v1/tasks", { key: tokens.access_token }), 401, "invalid_key");
      expect((await clientCredentials(app, owner.orgId)).body).toMatchObject({ error: "invalid_grant" });

      // The sweep runs after the scheduled handler answers (waitUntil): its work is waited for.
      await runSweep();
      await pollUntil(
        () => installationOf(app, owner.orgId),
        (row) => row.uninstalled_at !== null,
        30_000,
      );
      expect((await auditRows(owner.orgId)).at(-1)).toMatchObject({
        action: "application.installation_ended",
        actor: { type: "system", name: "opsroom" },
        target: { type: "installation", id: installation.id },
      });
    },
  );

  it("installed afresh over one whose installer's authority went: the grants of before stay refused", async () => {
    const owner = await signUp();
    const member = await memberOf(owner, "member");
    const app = await registerApp(owner);
    const before = await tokensFor(app, owner);
    const installation = await installationOf(app, owner.orgId);
    await query("update installations set installed_by_user_id = $1 where id = $2", [member.userId, installation.id]);
    await query("delete from memberships where user_id = $1 and org_id = $2", [member.userId, owner.orgId]);
    expectError(await api("/v1/tasks", { key: before.access_token }), 401, "invalid_key");
    const after = await tokensFor(app, owner);
    expect(await installationOf(app, owner.orgId)).toMatchObject({
      id: installation.id,
      installed_by_user_id: owner.userId,
      uninstalled_at: null,
    });
    expectSuccess(await api("/v1/tasks", { key: after.access_token }));
    expectError(await api("/v1/tasks", { key: before.access_token }), 401, "invalid_key");
  });
});
