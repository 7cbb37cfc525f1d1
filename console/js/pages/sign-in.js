// @ts-check
// sign-in.html: email and password; then back to the page that asked (?next=, a path of this
// origin only: nextPath) or the board. Creating an account instead keeps the same way back.

import { byId, inputById, submitting } from "../lib/dom.js";
import { carryNext, nextPath, signIn } from "../lib/session.js";

carryNext(/** @type {HTMLAnchorElement} */ (byId("sign-up-link")));
const form = /** @type {HTMLFormElement} */ (byId("sign-in-form"));
form.addEventListener("submit", (event) => {
  event.preventDefault();
  void submitting(form, byId("sign-in-error"), async () => {
    await signIn(inputById("email").value.trim(), inputById("password").value);
    location.assign(nextPath());
  });
});
// The form is hidden until this handler is attached: submitted natively, it would put the
// password in the page's URL.
form.hidden = false;
