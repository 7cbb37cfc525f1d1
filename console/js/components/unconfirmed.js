// @ts-check
// A person whose organisation requires a confirmed address, and whose address is not confirmed
// yet (docs/people.md "Confirmed addresses"): the API refuses them its data (403
// email_unverified), so the page says why in place of its content and offers another link.

import { request } from "../lib/api.js";
import { el, showError } from "../lib/dom.js";

/**
 * Shows, in place of the page's content, that the organisation needs the person's address
 * confirmed, with a "Resend confirmation" button (POST /auth/send-verification-email).
 * @param {import("../lib/session.js").Session} session
 */
export function showUnconfirmed(session) {
  const status = el("p", { id: "unconfirmed-status", role: "status" });
  const alert = el("p", { id: "unconfirmed-error", class: "error", role: "alert" });
  const resend = el("button", { type: "button", id: "resend-confirmation" }, ["Resend confirmation"]);
  resend.addEventListener("click", async () => {
    const button = /** @type {HTMLButtonElement} */ (resend);
    button.disabled = true;
    showError(alert);
    status.textContent = "";
    try {
      await request("/auth/send-verification-email", { body: { email: session.user.email } });
      status.textContent = `A new link is on its way to ${session.user.email}. Follow it, then reload this page.`;
    } catch (error) {
      showError(alert, error);
    } finally {
      button.disabled = false;
    }
  });
  const main = el("main", { id: "unconfirmed", class: "panel unconfirmed", "aria-labelledby": "unconfirmed-heading" }, [
    el("h2", { id: "unconfirmed-heading" }, ["Confirm your email address"]),
    el("p", {}, [
      `${session.organisation.name} requires a confirmed email address. Follow the link mailed to ${session.user.email}, then reload this page.`,
    ]),
    el("p", {}, ["No link, or it expired (links last an hour)? Ask for another:"]),
    resend,
    status,
    alert,
  ]);
  main.tabIndex = -1;
  for (const other of document.querySelectorAll("main")) other.remove();
  document.body.append(main);
  // The page's skip link leads here now: its own target went with the page's content.
  for (const link of document.querySelectorAll("a.skip-link")) /** @type {HTMLAnchorElement} */ (link).href = "#unconfirmed";
}
