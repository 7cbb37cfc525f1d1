// @ts-check
// sign-up.html: a new person and the organisation they will own; then back to the page that sent
// them to sign in (?next=, a path of this origin only), else the board.

import { byId, inputById, submitting } from "../lib/dom.js";
import { carryNext, nextPath, signUp } from "../lib/session.js";

carryNext(/** @type {HTMLAnchorElement} */ (byId("sign-in-link")));
const form = /** @type {HTMLFormElement} */ (byId("sign-up-form"));
form.addEventListener("submit", (event) => {
  event.preventDefault();
  void submitting(form, byId("sign-up-error"), async () => {
    await signUp({
      name: inputById("name").value.trim(),
      email: inputById("email").value.trim(),
      password: inputById("password").value,
      organisationName: inputById("organisation-name").value.trim(),
    });
    location.assign(nextPath());
  });
});
// The form is hidden until this handler is attached: submitted natively, it would put the
// password in the page's URL.
form.hidden = false;
