import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import type { Role } from "../../domain/roles.ts";
import { answerWithin, api, testClientAddress, workerUrl, type ApiOptions, type ApiResponse } from "./api.ts";
import { query, snapshot } from "./database.ts";
import { insertPerson, insertProject, insertTask, type Tenant } from "./fixtures.ts";

// People in tests: sign-up, sign-in and calls made with the session cookie, over HTTP against the
// harness's Worker, as the console's pages make them (same origin).

export interface Person {
  userId: string;
  orgId: string;
  email: string;
  password: string;
  name: string;
  /** The Cookie header that carries the session. */
  cookie: string;
}

/** A fresh address for a test, so runs never collide. */
export const newEmail = (label = "person") => `${label}-${randomUUID().slice(0, 8)}@example.test`;

/** The Cookie header for the cookies a response set. */
export function cookieOf(response: Response | ApiResponse): string {
  const cookies = response.headers.getSetCookie().map((line) => line.split(";")[0]!);
  return cookies.filter((pair) => !pair.endsWith("=")).join("; ");
}

/** POSTs to better-auth under /auth, as a page of this origin. */
export async function authPost(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(new URL(path, workerUrl()), {
    method: "POST",
    headers: { "content-type": "application/json", origin: workerUrl(), "cf-connecting-ip": testClientAddress(), ...headers },
    body: JSON.stringify(body),
    redirect: "manual",
    signal: answerWithin("POST", path),
  });
}

/** Signs up a new person (who then owns a new organisation, unless `invitation` is given). */
export async function signUp(
  options: { email?: string; password?: string; name?: string; organisationName?: string; invitation?: string } = {},
): Promise<Person> {
  const email = options.email ?? newEmail();
  const password = options.password ?? `pw-${randomUUID()}`;
  const name = options.name ?? "Ada Lovelace";
  const response = await authPost("/auth/sign-up/email", {
    email,
    password,
    name,
    organisationName: options.organisationName,
    invitation: options.invitation,
  });
  expect(response.status, await response.clone().text()).toBe(200);
  const cookie = cookieOf(response);
  const me = await asPerson(cookie, "/v1/settings/session");
  expect(me.status, me.text).toBe(200);
  return { userId: me.body.data.user.id, orgId: me.body.data.organisation.id, email, password, name, cookie };
}

export async function signIn(email: string, password: string): Promise<Response> {
  return authPost("/auth/sign-in/email", { email, password });
}

/** A call with the session cookie, from a page of the Worker's own origin. */
export function asPerson(cookie: string, path: string, options: ApiOptions = {}): Promise<ApiResponse> {
  return api(path, { ...options, headers: { cookie, origin: workerUrl(), ...options.headers } });
}

/** A member of `owner`'s organisation with `role`, signed in (made through an invitation). */
export async function memberOf(owner: Person, role: Role): Promise<Person> {
  const email = newEmail(role);
  const invited = await asPerson(owner.cookie, "/v1/settings/invitations", { body: { email, role } });
  expect(invited.status, invited.text).toBe(201);
  const token = new URL(invited.body.data.url).hash.slice(1);
  return signUp({ email, invitation: token, name: `${role} person` });
}

/** Rows the settings area wrote for an organisation: what a refused call must not have changed. */
export async function settingsRows(orgId: string) {
  const [keys, members, invitations] = await Promise.all([
    query(`select id, revoked_at from api_keys where org_id = $1 order by id`, [orgId]),
    query(`select user_id, role from memberships where org_id = $1 order by user_id`, [orgId]),
    query(`select id, revoked_at, accepted_at from invitations where org_id = $1 order by id`, [orgId]),
  ]);
  return { keys, members, invitations };
}

/** The invitation token of a link (`.../invite#<token>`). */
export const tokenOfLink = (url: string) => new URL(url).hash.slice(1);

/** Invites `email` with `role` as `inviter`; answers the response and, when created, its id and token. */
export async function invite(inviter: Person, email: string, role: Role) {
  const response = await asPerson(inviter.cookie, "/v1/settings/invitations", { body: { email, role } });
  const data = response.status === 201 ? response.body.data : null;
  return { response, id: data?.id as string | undefined, token: data ? tokenOfLink(data.url) : undefined };
}

/** Signs in and answers the person with the new session's cookie (asserting 200). */
export async function signedIn(person: Person): Promise<Person> {
  const response = await signIn(person.email, person.password);
  expect(response.status, await response.clone().text()).toBe(200);
  return { ...person, cookie: cookieOf(response) };
}

/** The session token a cookie carries (before its signature). */
export function sessionTokenOfCookie(cookie: string): string {
  const value = /opsroom\.session_token=([^;]+)/.exec(cookie)?.[1];
  if (!value) throw new Error(`no session cookie in ${cookie}`);
  const decoded = decodeURIComponent(value);
  return decoded.slice(0, decoded.lastIndexOf("."));
}

/** The memberships of a user, as (org_id, role) rows in joining order. */
export const membershipsOf = (userId: string) =>
  query<{ org_id: string; role: string }>(`select org_id, role from memberships where user_id = $1 order by created_at, org_id`, [userId]);

/**
 * What the settings area may write, for the given organisations: every row they own (snapshot:
 * keys, memberships, invitations, ...) and the sessions of their members (the organisation a
 * session acts for). A refused call must leave it as it was.
 */
export async function peopleTrace(...orgIds: string[]) {
  const snapshots = await Promise.all(orgIds.map((orgId) => snapshot(orgId)));
  const sessions = await query(
    `select s.id, s.user_id, s.active_org_id, s.expires_at from sessions s
      where s.user_id in (select user_id from memberships where org_id = any($1::uuid[])) order by s.id`,
    [orgIds],
  );
  return { snapshots, sessions, settings: await Promise.all(orgIds.map((orgId) => settingsRows(orgId))) };
}

/**
 * The fixture inserts of a person's organisation, for the body helpers that take a Tenant
 * (taskBody, riskBody, insertRisk...: they only use its id and insert the project and people a body
 * names). It has no key.
 */
export function fixturesOf(orgId: string): Tenant {
  const only = {
    org: { id: orgId },
    insertProject: (f?: object) => insertProject(orgId, f),
    insertPerson: (f?: object) => insertPerson(orgId, f),
    insertTask: (f?: object) => insertTask(orgId, f),
  };
  return only as unknown as Tenant;
}
