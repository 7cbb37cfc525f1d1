// @ts-check
// consent.html: where /oauth/authorize sends a person, with the authorization request in the query.
// It asks GET /oauth/consent what the request means (the application, its redirect host, each scope
// with its label, the person's organisations and what their role there can grant), lets the person
// choose an organisation and Allow or Deny, POSTs the decision and follows the answer's redirectTo
// back to the application (with a code, or error=access_denied). Signed out: off to sign in, which
// comes back here with the same query. The page is never framed and sends no Referer (_headers).

import { byId, el, showError } from "../lib/dom.js";
import { AUTHORIZE_FIELDS } from "../lib/domain.generated.js";

/**
 * GET /oauth/consent's answer (docs/apps.md).
 * @typedef {{ id: string, name: string, role: string, grantable: string[], allowed: boolean, reason?: string }} Organisation
 * @typedef {{
 *   application: { name: string, clientId: string, redirectHost: string, dynamic: boolean },
 *   scopes: { scope: string, label: string }[],
 *   organisations: Organisation[],
 * }} Consent
 */

const query = new URLSearchParams(location.search);
const alert = byId("consent-error");
const status = byId("consent-status");
const chooser = /** @type {HTMLSelectElement} */ (byId("consent-organisation"));
const allow = /** @type {HTMLButtonElement} */ (byId("consent-allow"));
const deny = /** @type {HTMLButtonElement} */ (byId("consent-deny"));

/** A refusal of /oauth/consent: its status and what it said. */
class Refusal extends Error {
  /** @param {number} status @param {any} answer */
  constructor(status, answer) {
    super(answer?.message ?? answer?.error_description ?? answer?.error?.message ?? `HTTP ${status}`);
    this.status = status;
  }
}

/**
 * GET or POST /oauth/consent; answers its JSON (or the data of an envelope), throws a Refusal.
 * @param {Record<string, string>} [body]
 */
async function consentCall(body) {
  const response = await fetch(body ? "/oauth/consent" : `/oauth/consent${location.search}`, {
    method: body ? "POST" : "GET",
    headers: body ? { accept: "application/json", "content-type": "application/json" } : { accept: "application/json" },
    credentials: "same-origin",
    body: body ? JSON.stringify(body) : undefined,
  });
  const answer = await response.json().catch(() => null);
  if (!response.ok) throw new Refusal(response.status, answer);
  return answer?.data ?? answer;
}

/** The sign-in page, which comes back to this very request once the person is signed in. */
function goToSignIn() {
  location.replace(`/sign-in.html?next=${encodeURIComponent(location.pathname + location.search)}`);
}

/** @param {Consent} consent */
function render(consent) {
  byId("app-name").textContent = consent.application.name;
  byId("redirect-host").textContent = consent.application.redirectHost;
  byId("app-dynamic").hidden = !consent.application.dynamic;
  document.title = `Allow ${consent.application.name} · opsroom console`;
  const allowed = consent.organisations.filter((organisation) => organisation.allowed);
  chooser.replaceChildren(...allowed.map((organisation) => el("option", { value: organisation.id }, [organisation.name])));
  chooser.disabled = allowed.length === 0;
  byId("consent-unavailable").replaceChildren(
    ...consent.organisations
      .filter((organisation) => !organisation.allowed)
      .map((organisation) => el("li", {}, [`${organisation.name}: ${organisation.reason ?? "it cannot be installed there"}`])),
  );
  const showScopes = () =>
    renderScopes(
      consent,
      allowed.find((organisation) => organisation.id === chooser.value),
    );
  chooser.addEventListener("change", showScopes);
  showScopes();
}

/**
 * Each requested scope by its label; those the person's role in `organisation` cannot grant say
 * so, and are left out of what Allow grants. Allow is off when nothing could be granted.
 * @param {Consent} consent @param {Organisation | undefined} organisation
 */
function renderScopes(consent, organisation) {
  const grantable = new Set(organisation?.grantable ?? []);
  byId("consent-scopes").replaceChildren(
    ...consent.scopes.map(({ scope, label }) => {
      const granted = grantable.has(scope);
      return el("li", { class: granted ? "grantable" : "not-grantable", "data-scope": scope }, [
        label,
        " ",
        el("code", {}, [scope]),
        ...(organisation && !granted
          ? [el("span", { class: "why" }, [` Not granted: your role (${organisation.role}) cannot grant it.`])]
          : []),
      ]);
    }),
  );
  const hint = byId("consent-organisation-hint");
  if (!organisation) hint.textContent = "It cannot be installed in any of your organisations.";
  else if (grantable.size === 0) hint.textContent = `Your role in ${organisation.name} can grant none of these.`;
  else hint.textContent = `Allowing installs it in ${organisation.name}, where it acts with the scopes above that are not marked.`;
  allow.disabled = !organisation || !consent.scopes.some(({ scope }) => grantable.has(scope));
}

/**
 * Sends the decision and follows the application's redirect (replacing this page in the history,
 * so Back does not return to a used request).
 * @param {"allow" | "deny"} decision @param {Consent} consent
 */
async function decide(decision, consent) {
  const buttons = [allow, deny];
  const wasDisabled = allow.disabled;
  buttons.forEach((button) => (button.disabled = true));
  showError(alert);
  try {
    /** @type {Record<string, string>} */
    const body = { decision, orgId: chooser.value || (consent.organisations[0]?.id ?? "") };
    for (const field of AUTHORIZE_FIELDS) {
      const value = query.get(field);
      if (value !== null) body[field] = value;
    }
    const { redirectTo } = await consentCall(body);
    status.textContent = `Going back to ${consent.application.redirectHost}…`;
    location.replace(redirectTo);
  } catch (error) {
    if (error instanceof Refusal && error.status === 401) return goToSignIn();
    showError(alert, error);
    deny.disabled = false;
    allow.disabled = wasDisabled;
  }
}

async function start() {
  /** @type {Consent} */
  let consent;
  try {
    consent = await consentCall();
  } catch (error) {
    if (error instanceof Refusal && error.status === 401) return goToSignIn();
    status.textContent = "This authorization request cannot be used. Go back to the application and start again.";
    return showError(alert, error);
  }
  render(consent);
  allow.addEventListener("click", () => void decide("allow", consent));
  deny.addEventListener("click", () => void decide("deny", consent));
  status.textContent = "";
  byId("consent").hidden = false;
  (allow.disabled ? deny : allow).focus();
}

void start();
