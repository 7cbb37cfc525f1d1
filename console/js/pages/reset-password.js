// @ts-check
// reset-password.html: without a token, asks for a reset link by mail (the same answer whether or
// not the address has an account); with the mailed link's token (#token), sets the new password,
// which ends every session, then sends the person to sign in.

import { request } from "../lib/api.js";
import { byId, inputById, submitting } from "../lib/dom.js";

const token = decodeURIComponent(location.hash.slice(1));
const done = byId("reset-done");
const requestForm = /** @type {HTMLFormElement} */ (byId("request-form"));
const resetForm = /** @type {HTMLFormElement} */ (byId("reset-form"));

requestForm.addEventListener("submit", (event) => {
  event.preventDefault();
  void submitting(requestForm, byId("request-error"), async () => {
    await request("/auth/request-password-reset", { body: { email: inputById("email").value.trim() } });
    requestForm.hidden = true;
    done.textContent = "If the address has an account, a link is on its way. Check your mail.";
  });
});

resetForm.addEventListener("submit", (event) => {
  event.preventDefault();
  void submitting(resetForm, byId("reset-error"), async () => {
    await request("/auth/reset-password", { body: { token, newPassword: inputById("new-password").value } });
    // The token is spent: it leaves the address bar and the history.
    history.replaceState(null, "", location.pathname);
    resetForm.hidden = true;
    done.textContent = "Your password is set. Sign in with it.";
  });
});

// Shown once the handlers are attached: submitted natively, a form would put its fields in the URL.
(token ? resetForm : requestForm).hidden = false;
