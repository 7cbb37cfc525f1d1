// @ts-check
// The header's account area on the board and in the settings: who is signed in and in which
// role, the organisation (a switch when the person belongs to several), Settings and Sign out.

import { request } from "../lib/api.js";
import { el } from "../lib/dom.js";
import { signOut } from "../lib/session.js";

const ROLE_LABELS = { owner: "Owner", admin: "Admin", member: "Member" };

/**
 * @param {HTMLElement} root the header's <nav aria-label="Account">
 * @param {import("../lib/session.js").Session} session
 * @param {{ settingsLink?: boolean }} [options]
 */
export function renderAccount(root, session, { settingsLink = true } = {}) {
  const who = el("p", { class: "who" }, [
    "Signed in as ",
    el("strong", {}, [session.user.name]),
    ` · ${ROLE_LABELS[session.role] ?? session.role}`,
  ]);
  const signOutButton = el("button", { type: "button" }, ["Sign out"]);
  signOutButton.addEventListener("click", () => void signOut());
  const parts = [who];
  if (session.organisations.length > 1) parts.push(...organisationSwitch(session));
  if (settingsLink) parts.push(el("a", { href: "/settings.html" }, ["Settings"]));
  parts.push(el("a", { href: "/docs" }, ["API reference"]), signOutButton);
  root.replaceChildren(...parts);
}

/** @param {import("../lib/session.js").Session} session */
function organisationSwitch(session) {
  const select = /** @type {HTMLSelectElement} */ (
    el(
      "select",
      { id: "organisation-switch" },
      session.organisations.map((org) => el("option", { value: org.id, selected: org.id === session.organisation.id }, [org.name])),
    )
  );
  select.addEventListener("change", async () => {
    try {
      await request("/v1/settings/session/organisation", { body: { orgId: select.value } });
    } catch {
      // Refused (no longer a member, say): the reload shows the session as the server has it.
    }
    location.reload();
  });
  return [el("label", { for: "organisation-switch" }, ["Organisation"]), select];
}
