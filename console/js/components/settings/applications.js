// @ts-check
// Settings -> Integrations -> Applications: the OAuth applications this organisation registered
// (docs/apps.md). Register one (name, redirect URIs, the scopes it may ask for, confidential or
// public); its client id is listed, a confidential one's secret is shown once; Rotate secret
// issues a new one while the current one keeps working for an overlap the person chooses; Delete
// removes it and everything it was granted. The owner's switch for dynamic client registration is
// here too (applications that register themselves).

import { request } from "../../lib/api.js";
import { byId, el, formatDate, inputById, showError, submitting } from "../../lib/dom.js";
import { actionButton, checkedScopes, confirmIn, scopeChecks, scopeList, showOnce } from "./widgets.js";

/**
 * @typedef {{
 *   id: string, clientId: string, name: string, redirectUris: string[], scopes: string[], public: boolean,
 *   createdAt: string, createdBy: { id: string, name: string } | null,
 * }} Application
 */

/** How long a rotated secret keeps working, as the Rotate confirmation offers it. */
const OVERLAPS = [
  { label: "1 day", seconds: 86_400 },
  { label: "1 hour", seconds: 3_600 },
  { label: "7 days", seconds: 604_800 },
  { label: "no time: it stops at once", seconds: 0 },
];

/** @param {{ scopes: { scope: string, label: string }[], role: string }} options */
export async function mountApplications({ scopes, role }) {
  const labels = new Map(scopes.map(({ scope, label }) => [scope, label]));
  const panel = {
    alert: byId("applications-error"),
    status: byId("applications-status"),
    secret: byId("applications-secret"),
    rows: /** @type {HTMLElement} */ (byId("applications-table").querySelector("tbody")),
  };

  async function refresh() {
    /** @type {Application[]} */
    const applications = (await request("/v1/settings/applications")).data;
    panel.rows.replaceChildren(...applications.map((application) => applicationRow(application, { ...panel, labels, refresh })));
    byId("applications-empty").hidden = applications.length > 0;
  }

  byId("application-scopes").append(...scopeChecks(scopes, "application-scope"));
  handleRegistration({ ...panel, refresh });
  await Promise.all([refresh().catch((error) => showError(panel.alert, error)), mountOrganisationSwitches(role)]);
}

/**
 * @typedef {{ alert: HTMLElement, status: HTMLElement, secret: HTMLElement, refresh: () => Promise<void> }} Panel
 */

/** @param {Panel} panel */
function handleRegistration({ alert, secret, refresh }) {
  const form = /** @type {HTMLFormElement} */ (byId("register-application-form"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void submitting(form, alert, async () => {
      const chosen = checkedScopes(form);
      if (chosen.length === 0) throw new Error("Choose at least one scope.");
      const redirectUris = /** @type {HTMLTextAreaElement} */ (byId("application-redirect-uris")).value.split(/\s+/).filter(Boolean);
      const body = {
        name: inputById("application-name").value.trim(),
        redirectUris,
        scopes: chosen,
        public: inputById("application-public").checked,
      };
      const { application, clientSecret } = (await request("/v1/settings/applications", { body })).data;
      form.reset();
      showCredentials(secret, application, clientSecret);
      await refresh();
    });
  });
}

/**
 * The new application's client id, and a confidential one's secret, shown once with Copy.
 * @param {HTMLElement} container @param {Application} application @param {string | null} clientSecret
 */
function showCredentials(container, application, clientSecret) {
  if (clientSecret) {
    showOnce(container, {
      title: `Application “${application.name}” registered, client id ${application.clientId}.`,
      label: "Client secret (shown once)",
      value: clientSecret,
    });
    return;
  }
  container.replaceChildren(
    el("div", { class: "secret" }, [
      el("p", {}, [
        el("strong", {}, [`Application “${application.name}” registered, client id ${application.clientId}.`]),
        " A public client has no secret: it proves each authorization with PKCE.",
      ]),
    ]),
  );
}

/**
 * @param {Application} application
 * @param {Panel & { labels: Map<string, string> }} panel
 */
function applicationRow(application, panel) {
  const actions = el("td", { class: "actions" });
  if (!application.public) actions.append(rotateButton(application, actions, panel));
  actions.append(
    actionButton("Delete", panel.alert, () =>
      confirmIn(actions, {
        prompt: `Delete “${application.name}”? Every organisation that installed it loses it, and its tokens are refused at once.`,
        confirmLabel: "Confirm delete",
        alert: panel.alert,
        async onConfirm() {
          await request(`/v1/settings/applications/${application.id}`, { method: "DELETE" });
          await panel.refresh();
          panel.status.textContent = `“${application.name}” is deleted.`;
        },
      }),
    ),
  );
  const created = formatDate(application.createdAt) + (application.createdBy ? ` by ${application.createdBy.name}` : "");
  const uris = application.redirectUris.map((uri) => el("li", {}, [el("code", {}, [uri])]));
  return el("tr", { "data-id": application.id }, [
    el("th", { scope: "row" }, [application.name, el("br"), el("code", {}, [application.clientId])]),
    el("td", {}, [application.public ? "Public" : "Confidential"]),
    el("td", {}, [el("ul", { class: "uri-list" }, uris)]),
    el("td", {}, [scopeList(panel.labels, application.scopes)]),
    el("td", {}, [created]),
    actions,
  ]);
}

/**
 * Rotate secret: asks how long the current secret keeps working, then shows the new one once.
 * @param {Application} application @param {HTMLElement} actions @param {Panel} panel
 */
function rotateButton(application, actions, panel) {
  return actionButton("Rotate secret", panel.alert, () => {
    const id = `overlap-${application.id}`;
    const overlap = /** @type {HTMLSelectElement} */ (
      el(
        "select",
        { id },
        OVERLAPS.map(({ label, seconds }) => el("option", { value: String(seconds) }, [label])),
      )
    );
    confirmIn(actions, {
      prompt: `A new secret for “${application.name}”.`,
      controls: [el("label", { for: id }, ["The current secret keeps working for "]), overlap],
      confirmLabel: "Confirm rotate",
      alert: panel.alert,
      async onConfirm() {
        const body = { overlapSeconds: Number(overlap.value) };
        const rotated = (await request(`/v1/settings/applications/${application.id}/secret`, { body })).data;
        const until = rotated.previousSecretExpiresAt ? `until ${formatDate(rotated.previousSecretExpiresAt)}` : "no longer";
        showOnce(panel.secret, {
          title: `New secret for “${application.name}”; the previous one works ${until}.`,
          label: "Client secret (shown once)",
          value: rotated.clientSecret,
        });
        await panel.refresh();
      },
    });
  });
}

/**
 * The organisation's switches (PATCH /v1/settings/organisation): dynamic client registration
 * (RFC 7591) and confirmed addresses (docs/people.md "Confirmed addresses"). Off unless an owner
 * turns them on; an admin sees them and cannot change them.
 * @param {string} role
 */
async function mountOrganisationSwitches(role) {
  /** @type {[OrganisationSetting, string, string][]} */
  const switches = [
    ["allowDynamicClientRegistration", "dynamic-registration", "Applications that registered themselves may now be installed here."],
    ["requireVerifiedEmail", "verified-email", "People whose address is unconfirmed now reach nothing here until they confirm it."],
  ];
  let settings;
  try {
    settings = (await request("/v1/settings/organisation")).data;
  } catch (error) {
    for (const [, id] of switches) showError(byId(`${id}-error`), error);
    return;
  }
  for (const [field, id, onHint] of switches) mountSwitch(role, settings, field, id, onHint);
}

/** @typedef {"allowDynamicClientRegistration" | "requireVerifiedEmail"} OrganisationSetting */

/**
 * One switch: its checkbox `#<id>`, hint `#<id>-hint` and alert `#<id>-error`.
 * @param {string} role @param {Record<OrganisationSetting, boolean>} settings @param {OrganisationSetting} field
 * @param {string} id @param {string} onHint what the hint says once the owner turned it on
 */
function mountSwitch(role, settings, field, id, onHint) {
  const box = inputById(id);
  const alert = byId(`${id}-error`);
  const hint = byId(`${id}-hint`);
  box.checked = settings[field];
  if (role !== "owner") {
    box.disabled = true;
    hint.textContent = "Only an owner changes this.";
    return;
  }
  box.disabled = false;
  box.addEventListener("change", async () => {
    const wanted = box.checked;
    box.disabled = true;
    showError(alert);
    try {
      box.checked = (await request("/v1/settings/organisation", { method: "PATCH", body: { [field]: wanted } })).data[field];
      hint.textContent = box.checked ? onHint : "";
    } catch (error) {
      box.checked = !wanted;
      showError(alert, error);
    } finally {
      box.disabled = false;
    }
  });
}
