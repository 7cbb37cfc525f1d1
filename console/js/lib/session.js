// @ts-check
// Who is signed in. A page that needs a person asks GET /v1/settings/session first; a 401 sends
// the browser to the sign-in page, which comes back here afterwards. A person whose organisation
// requires a confirmed address, and whose address is not, is shown why instead (the API would
// refuse them every other call: 403 email_unverified).

import { showUnconfirmed } from "../components/unconfirmed.js";
import { ApiRefusal, request } from "./api.js";

/**
 * @typedef {{
 *   user: { id: string, name: string, email: string, emailVerified: boolean },
 *   organisation: { id: string, name: string, requireVerifiedEmail: boolean },
 *   role: "owner" | "admin" | "member",
 *   scopes: string[],
 *   organisations: { id: string, name: string, role: string }[],
 * }} Session
 */

/** Set once the person asked to sign out: the page's own requests then meet 401s. */
let signingOut = false;

/**
 * Leaves for the sign-in page, which returns to this page once signed in. During a sign-out it
 * does nothing: the sign-out ends the session before the board's requests in flight are
 * answered, their 401s must not offer to bring the person back to where they left, and the
 * sign-out goes to the sign-in page itself (a second navigation would abort the first).
 */
export function goToSignIn() {
  if (signingOut) return;
  location.replace(`/sign-in.html?next=${encodeURIComponent(location.pathname)}`);
}

/**
 * The session, or (on a 401) off to sign in, or (an address the organisation requires confirmed)
 * the page that says so: the returned promise then never settles.
 * @returns {Promise<Session>}
 */
export async function requireSession() {
  /** @type {Session} */
  let session;
  try {
    session = (await request("/v1/settings/session")).data;
  } catch (error) {
    if (!(error instanceof ApiRefusal) || error.status !== 401) throw error;
    goToSignIn();
    return new Promise(() => {});
  }
  if (!session.organisation.requireVerifiedEmail || session.user.emailVerified) return session;
  showUnconfirmed(session);
  return new Promise(() => {});
}

/**
 * Where to go after signing in: `?next=` when it is a path of this origin, else the board. Only
 * the path and query are kept, so `//elsewhere`, `https://elsewhere`, `/\elsewhere` or
 * `javascript:` (each of another origin, or none, once resolved) lead to the board: no open redirect.
 */
export function nextPath() {
  const next = new URLSearchParams(location.search).get("next") ?? "/";
  let url;
  try {
    url = new URL(next, location.origin);
  } catch {
    return "/";
  }
  return url.origin === location.origin ? url.pathname + url.search : "/";
}

/**
 * Points a link to the other sign-in page (sign-in <-> sign-up) at the same `?next=`.
 * @param {HTMLAnchorElement} link
 */
export function carryNext(link) {
  const next = nextPath();
  if (next !== "/") link.search = `?next=${encodeURIComponent(next)}`;
}

/** @param {string} email @param {string} password */
export const signIn = (email, password) => request("/auth/sign-in/email", { body: { email, password } });

/** @param {{ name: string, email: string, password: string, organisationName?: string, invitation?: string }} fields */
export const signUp = (fields) => request("/auth/sign-up/email", { body: fields });

export async function signOut() {
  signingOut = true;
  try {
    await request("/auth/sign-out", { body: {} });
  } catch (error) {
    signingOut = false;
    throw error;
  }
  location.replace("/sign-in.html");
}
