// @ts-check
// Settings -> Integrations -> Installed applications: the applications people of this organisation
// allowed (by consent), with who installed each, the scopes it holds here and when it was last
// used; Uninstall refuses its tokens at once, closes its sockets and stops the webhooks it
// registered (docs/apps.md).

import { request } from "../../lib/api.js";
import { byId, el, formatDate, showError } from "../../lib/dom.js";
import { actionButton, confirmIn, scopeList } from "./widgets.js";

/**
 * @typedef {{
 *   id: string, application: { id: string, name: string, clientId: string }, scopes: string[],
 *   installedBy: { id: string, name: string } | null, installedAt: string, lastUsedAt: string | null,
 * }} Installation
 */

/** @param {{ scopes: { scope: string, label: string }[] }} options */
export async function mountInstallations({ scopes }) {
  const labels = new Map(scopes.map(({ scope, label }) => [scope, label]));
  const alert = byId("installations-error");
  const status = byId("installations-status");
  const rows = /** @type {HTMLElement} */ (byId("installations-table").querySelector("tbody"));

  async function refresh() {
    /** @type {Installation[]} */
    const installations = (await request("/v1/settings/installations")).data;
    rows.replaceChildren(...installations.map(row));
    byId("installations-empty").hidden = installations.length > 0;
  }

  /** @param {Installation} installation */
  function row(installation) {
    const { application } = installation;
    const actions = el("td", { class: "actions" });
    actions.append(
      actionButton("Uninstall", alert, () =>
        confirmIn(actions, {
          prompt: `Uninstall “${application.name}”? Its tokens are refused at once, its sockets close and its webhooks stop.`,
          confirmLabel: "Confirm uninstall",
          alert,
          async onConfirm() {
            await request(`/v1/settings/installations/${installation.id}`, { method: "DELETE" });
            await refresh();
            status.textContent = `“${application.name}” is uninstalled.`;
          },
        }),
      ),
    );
    return el("tr", { "data-id": installation.id }, [
      el("th", { scope: "row" }, [application.name, el("br"), el("code", {}, [application.clientId])]),
      el("td", {}, [scopeList(labels, installation.scopes)]),
      el("td", {}, [installation.installedBy?.name ?? ""]),
      el("td", {}, [formatDate(installation.installedAt)]),
      el("td", {}, [formatDate(installation.lastUsedAt)]),
      actions,
    ]);
  }

  await refresh().catch((error) => showError(alert, error));
}
