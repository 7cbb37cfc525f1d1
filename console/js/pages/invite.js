// @ts-check
// /invite#<token> (invite.html): whom the invitation is for (GET /auth/invitations/{token}), then one of:
// accept it as the person already signed in with that address, sign up with that address, or
// sign in ("I already have an account") and accept. The token stays in the fragment, which the
// browser never sends to a server.

import { request } from "../lib/api.js";
import { byId, inputById, showError, submitting } from "../lib/dom.js";
import { signIn, signUp } from "../lib/session.js";

const token = decodeURIComponent(location.hash.slice(1));
const forms = {
  accept: /** @type {HTMLFormElement} */ (byId("invite-accept-form")),
  signUp: /** @type {HTMLFormElement} */ (byId("invite-sign-up-form")),
  signIn: /** @type {HTMLFormElement} */ (byId("invite-sign-in-form")),
};
const alert = byId("invite-error");

/** @param {keyof typeof forms} name */
function show(name) {
  for (const [key, form] of Object.entries(forms)) form.hidden = key !== name;
  /** @type {HTMLElement | null} */ (forms[name].querySelector("input:not([readonly]), button"))?.focus();
}

const accept = () => request("/auth/invitations/accept", { body: { token } });

async function start() {
  if (!token) {
    byId("invitation-summary").textContent = "This link carries no invitation. Ask for a new link.";
    return;
  }
  let invitation;
  try {
    invitation = (await request(`/auth/invitations/${encodeURIComponent(token)}`)).data;
  } catch (error) {
    byId("invitation-summary").textContent = "This invitation cannot be used.";
    return showError(alert, error);
  }
  byId("invitation-summary").textContent = `${invitation.email} is invited to join ${invitation.organisation} as ${invitation.role}.`;
  byId("invitation-heading").textContent = `Join ${invitation.organisation}`;
  inputById("sign-up-email").value = invitation.email;
  inputById("sign-in-email").value = invitation.email;

  const session = await request("/v1/settings/session").then(
    (envelope) => envelope.data,
    () => null,
  );
  if (session?.user.email === invitation.email) {
    byId("accept-email").textContent = session.user.email;
    show("accept");
  } else {
    show("signUp");
  }
}

forms.accept.addEventListener("submit", (event) => {
  event.preventDefault();
  void submitting(forms.accept, alert, async () => {
    await accept();
    location.assign("/");
  });
});

forms.signUp.addEventListener("submit", (event) => {
  event.preventDefault();
  void submitting(forms.signUp, alert, async () => {
    const fields = {
      name: inputById("sign-up-name").value.trim(),
      email: inputById("sign-up-email").value,
      password: inputById("sign-up-password").value,
    };
    await signUp({ ...fields, invitation: token });
    location.assign("/");
  });
});

forms.signIn.addEventListener("submit", (event) => {
  event.preventDefault();
  void submitting(forms.signIn, alert, async () => {
    await signIn(inputById("sign-in-email").value, inputById("sign-in-password").value);
    await accept();
    location.assign("/");
  });
});

byId("show-sign-in").addEventListener("click", () => show("signIn"));
byId("show-sign-up").addEventListener("click", () => show("signUp"));

void start();
