import { createHmac, randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { ALL_SCOPES } from "../../domain/scopes.ts";
import { api, expectError, workerUrl, type ApiResponse, type Method } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { keyWith } from "../helpers/fixtures.ts";
import {
  asPerson,
  fixturesOf,
  invite,
  memberOf,
  newEmail,
  peopleTrace,
  sessionTokenOfCookie,
  signedIn,
  signUp,
  type Person,
} from "../helpers/people.ts";
import { insertRisk } from "../helpers/project-records.ts";
import { notificationTrace } from "../notifications/helpers.ts";

// The refusals every settings endpoint shares, one `it` per endpoint x refusal, each asserting the
// error envelope and that the refused call left no trace in either organisation (every row they
// own, the sessions of their members, their notifications, follows and preferences). Refused calls
// change nothing, so the file shares one arrangement: organisation A (owner, member, a second
// member to act on, an open invitation, a key, a notification of the owner's, a task, project and
// risk to follow) and organisation B (the same: the foreign ids). A person's notifications and
// follows are session-only too (docs/notifications.md): a key is no one to notify. Their bad input
// and unknown ids: test/notifications/bad-input.test.ts.

interface Org {
  owner: Person;
  member: Person;
  /** A member the calls act on (not the caller). */
  target: Person;
  invitationId: string;
  keyId: string;
  /** A notification of the owner's. */
  notificationId: string;
  /** Records to follow: /v1/tasks/<id>, /v1/projects/<id>, /v1/risks/<id>. */
  followable: Record<"tasks" | "projects" | "risks", string>;
}

interface World {
  a: Org;
  b: Org;
  /** An all-scopes API key of organisation A. */
  key: string;
  /** A session of A's owner that has expired. */
  expired: string;
  /** The session of someone removed from A (and a member nowhere else). */
  removed: string;
}

let world: World;

async function arrange(): Promise<Org> {
  const owner = await signUp();
  const [member, target] = [await memberOf(owner, "member"), await memberOf(owner, "member")];
  const invitationId = (await invite(owner, newEmail("open"), "member")).id!;
  const key = await asPerson(owner.cookie, "/v1/settings/api-keys", { body: { name: "Warehouse sync", scopes: ["tasks.read"] } });
  expect(key.status, key.text).toBe(201);
  const fixtures = fixturesOf(owner.orgId);
  const task = await fixtures.insertTask();
  const followable = { tasks: task.id, projects: task.projectId, risks: await insertRisk(fixtures) };
  // A notification as the derivation writes one (docs/notifications.md), of no event of this file's.
  const [notification] = await query<{ id: string }>(
    `insert into notifications (org_id, user_id, event_id, kind, event_type, change_version, actor, record_type, record_id, title, mail_state)
     values ($1, $2, gen_random_uuid(), 'assigned', 'task.created', 1, '{"type":"system","id":null,"name":"test"}', 'task', $3, 'A task', 'none')
     returning id`,
    [owner.orgId, owner.userId, task.id],
  );
  return { owner, member, target, invitationId, keyId: key.body.data.id, notificationId: notification!.id, followable };
}

beforeAll(async () => {
  const [a, b] = [await arrange(), await arrange()];
  const expired = await signedIn(a.owner);
  await query("update sessions set expires_at = now() - interval '1 second' where token = $1", [sessionTokenOfCookie(expired.cookie)]);
  const removed = await memberOf(a.owner, "admin");
  expect((await asPerson(a.owner.cookie, `/v1/settings/members/${removed.userId}`, { method: "DELETE" })).status).toBe(200);
  world = { a, b, key: (await keyWith(a.owner.orgId, ALL_SCOPES)).key, expired: expired.cookie, removed: removed.cookie };
}, 60_000);

interface Call {
  path: string;
  body?: unknown;
}

interface Endpoint {
  method: Method;
  /** The path as written in the documentation. */
  name: string;
  /** The call against organisation `org`'s own records (A: the caller's). */
  call: (org: Org, w: World) => Call;
  /** Owners and admins only: a member is answered 403 insufficient_role. */
  manage: boolean;
  /** The call naming one of organisation B's records (or B itself): 404 for A's owner. */
  foreign?: (w: World) => Call;
}

const ENDPOINTS: Endpoint[] = [
  { method: "GET", name: "/v1/settings/session", manage: false, call: () => ({ path: "/v1/settings/session" }) },
  {
    method: "POST",
    name: "/v1/settings/session/organisation",
    manage: false,
    call: (org) => ({ path: "/v1/settings/session/organisation", body: { orgId: org.owner.orgId } }),
    foreign: (w) => ({ path: "/v1/settings/session/organisation", body: { orgId: w.b.owner.orgId } }),
  },
  { method: "GET", name: "/v1/settings/members", manage: false, call: () => ({ path: "/v1/settings/members" }) },
  {
    method: "PATCH",
    name: "/v1/settings/members/{userId}",
    manage: true,
    call: (org) => ({ path: `/v1/settings/members/${org.target.userId}`, body: { role: "admin" } }),
    foreign: (w) => ({ path: `/v1/settings/members/${w.b.target.userId}`, body: { role: "admin" } }),
  },
  {
    method: "DELETE",
    name: "/v1/settings/members/{userId}",
    manage: true,
    call: (org) => ({ path: `/v1/settings/members/${org.target.userId}` }),
    foreign: (w) => ({ path: `/v1/settings/members/${w.b.target.userId}` }),
  },
  { method: "GET", name: "/v1/settings/invitations", manage: true, call: () => ({ path: "/v1/settings/invitations" }) },
  {
    method: "POST",
    name: "/v1/settings/invitations",
    manage: true,
    call: () => ({ path: "/v1/settings/invitations", body: { email: newEmail("invitee"), role: "member" } }),
  },
  {
    method: "DELETE",
    name: "/v1/settings/invitations/{id}",
    manage: true,
    call: (org) => ({ path: `/v1/settings/invitations/${org.invitationId}` }),
    foreign: (w) => ({ path: `/v1/settings/invitations/${w.b.invitationId}` }),
  },
  { method: "GET", name: "/v1/settings/api-keys", manage: true, call: () => ({ path: "/v1/settings/api-keys" }) },
  {
    method: "POST",
    name: "/v1/settings/api-keys",
    manage: true,
    call: () => ({ path: "/v1/settings/api-keys", body: { name: "Refused", scopes: ["tasks.manage"], rateLimit: 10 } }),
  },
  ...(["revoke", "replace"] as const).map((verb): Endpoint => ({
    method: "POST",
    name: `/v1/settings/api-keys/{id}/${verb}`,
    manage: true,
    call: (org) => ({ path: `/v1/settings/api-keys/${org.keyId}/${verb}` }),
    foreign: (w) => ({ path: `/v1/settings/api-keys/${w.b.keyId}/${verb}` }),
  })),
  { method: "GET", name: "/v1/notifications", manage: false, call: () => ({ path: "/v1/notifications" }) },
  {
    method: "POST",
    name: "/v1/notifications/{id}/read",
    manage: false,
    call: (org) => ({ path: `/v1/notifications/${org.notificationId}/read` }),
    foreign: (w) => ({ path: `/v1/notifications/${w.b.notificationId}/read` }),
  },
  { method: "POST", name: "/v1/notifications/read", manage: false, call: () => ({ path: "/v1/notifications/read" }) },
  { method: "GET", name: "/v1/settings/notifications", manage: false, call: () => ({ path: "/v1/settings/notifications" }) },
  {
    method: "PATCH",
    name: "/v1/settings/notifications",
    manage: false,
    call: () => ({ path: "/v1/settings/notifications", body: { preferences: { changed: { email: "none", inApp: false } } } }),
  },
  ...(["tasks", "projects", "risks"] as const).flatMap((records) =>
    (["GET", "PUT", "DELETE"] as const).map((method): Endpoint => ({
      method,
      name: `/v1/${records}/{id}/subscription`,
      manage: false,
      call: (org) => ({ path: `/v1/${records}/${org.followable[records]}/subscription` }),
      foreign: (w) => ({ path: `/v1/${records}/${w.b.followable[records]}/subscription` }),
    })),
  ),
];

/** Makes the call with `headers` (and no Authorization unless given), and checks both organisations kept every row. */
async function refused(call: Call, method: Method, headers: Record<string, string>, expectation: (response: ApiResponse) => void) {
  const orgs = [world.a.owner.orgId, world.b.owner.orgId];
  const before = [await peopleTrace(...orgs), await notificationTrace(orgs)];
  const response = await api(call.path, { method, ...(call.body === undefined ? {} : { body: call.body }), headers });
  expectation(response);
  expect([await peopleTrace(...orgs), await notificationTrace(orgs)], "a refused call leaves no trace").toEqual(before);
}

const sameOrigin = () => ({ origin: workerUrl() });
const cookieHeader = (value: string) => ({ cookie: `opsroom.session_token=${encodeURIComponent(value)}`, ...sameOrigin() });
const sign = (token: string, secret: string) => `${token}.${createHmac("sha256", secret).update(token).digest("base64")}`;
const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === "A" ? "B" : "A") + text.slice(at + 1);

/** Session cookies the Worker must not accept, made from the owner's real one. */
const FORGED: Array<[string, (cookie: string) => Record<string, string>]> = [
  ["the bare session token, unsigned", (cookie) => cookieHeader(sessionTokenOfCookie(cookie))],
  [
    "the real token signed under another secret",
    (cookie) => cookieHeader(sign(sessionTokenOfCookie(cookie), randomBytes(32).toString("hex"))),
  ],
  [
    "the real token with its signature altered",
    (cookie) => {
      const value = decodeURIComponent(cookie.split("=").slice(1).join("="));
      return cookieHeader(flip(value, value.lastIndexOf(".") + 3));
    },
  ],
  [
    "another token under the real signature",
    (cookie) => {
      const value = decodeURIComponent(cookie.split("=").slice(1).join("="));
      return cookieHeader(flip(value, 0));
    },
  ],
  ["a made-up token and signature", () => cookieHeader(sign(randomBytes(24).toString("base64url"), randomBytes(32).toString("hex")))],
  ["a cookie of another name", (cookie) => ({ cookie: cookie.replace("opsroom.session_token", "opsroom.session"), ...sameOrigin() })],
];

/** Ways a write with the cookie says it comes from elsewhere (or does not say where it comes from). */
const CROSS_SITE: Array<[string, Record<string, string>]> = [
  ["Origin of another site", { origin: "https://evil.example" }],
  ["Origin of the same host on another port", { origin: "http://127.0.0.1:1" }],
  ["Origin: null", { origin: "null" }],
  ["no Origin and no Sec-Fetch-Site", {}],
  ["no Origin, Sec-Fetch-Site: cross-site", { "sec-fetch-site": "cross-site" }],
  ["no Origin, Sec-Fetch-Site: same-site", { "sec-fetch-site": "same-site" }],
];

for (const endpoint of ENDPOINTS) {
  const { method } = endpoint;
  describe(`${method} ${endpoint.name} refusals`, () => {
    it("no session: 401 unauthorized", () =>
      refused(endpoint.call(world.a, world), method, sameOrigin(), (res) => expectError(res, 401, "unauthorized")));

    it("an all-scopes API key: 401 unauthorized", () =>
      refused(endpoint.call(world.a, world), method, { authorization: `Bearer ${world.key}` }, (res) =>
        expectError(res, 401, "unauthorized"),
      ));

    it("an all-scopes API key alongside the owner's session: 401 unauthorized", () =>
      refused(
        endpoint.call(world.a, world),
        method,
        { authorization: `Bearer ${world.key}`, cookie: world.a.owner.cookie, ...sameOrigin() },
        (res) => expectError(res, 401, "unauthorized"),
      ));

    it("an expired session: 401 unauthorized", () =>
      refused(endpoint.call(world.a, world), method, { cookie: world.expired, ...sameOrigin() }, (res) =>
        expectError(res, 401, "unauthorized"),
      ));

    it("the session of someone removed from the organisation: 401 unauthorized", () =>
      refused(endpoint.call(world.a, world), method, { cookie: world.removed, ...sameOrigin() }, (res) =>
        expectError(res, 401, "unauthorized"),
      ));

    for (const [label, forge] of FORGED) {
      it(`forged cookie (${label}): 401 unauthorized`, () =>
        refused(endpoint.call(world.a, world), method, forge(world.a.owner.cookie), (res) => expectError(res, 401, "unauthorized")));
    }

    if (endpoint.manage) {
      it("a member: 403 insufficient_role", () =>
        refused(endpoint.call(world.a, world), method, { cookie: world.a.member.cookie, ...sameOrigin() }, (res) =>
          expectError(res, 403, "insufficient_role"),
        ));
    }

    const foreign = endpoint.foreign;
    if (foreign) {
      it("another organisation's id, as an owner: 404 not_found, neither organisation changes", () =>
        refused(foreign(world), method, { cookie: world.a.owner.cookie, ...sameOrigin() }, (res) => expectError(res, 404, "not_found")));
    }

    if (method !== "GET") {
      for (const [label, headers] of CROSS_SITE) {
        it(`cross-site (${label}), as an owner: 403 cross_site_request`, () =>
          refused(endpoint.call(world.a, world), method, { cookie: world.a.owner.cookie, ...headers }, (res) =>
            expectError(res, 403, "cross_site_request"),
          ));
      }
    }
  });
}
