// @ts-check
// Settings -> Your address: the address signed in with, and a change of it, which better-auth
// confirms at the new address (POST /auth/change-email mails a link there; docs/people.md).

import { request } from "../../lib/api.js";
import { byId, inputById, submitting } from "../../lib/dom.js";

/** @param {{ session: import("../../lib/session.js").Session }} options */
export function mountAddress({ session }) {
  byId("current-address").textContent = session.user.email;
  const form = /** @type {HTMLFormElement} */ (byId("change-email-form"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void submitting(form, byId("change-email-error"), async () => {
      const newEmail = inputById("new-email").value.trim();
      await request("/auth/change-email", { body: { newEmail } });
      form.reset();
      byId("change-email-status").textContent = `A link is on its way to ${newEmail}: your address changes when you follow it.`;
    });
  });
}
