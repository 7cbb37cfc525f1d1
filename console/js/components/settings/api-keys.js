// @ts-check
// Settings -> Integrations -> API keys: the organisation's live keys (never the keys themselves),
// a form to create one (name, scopes by their labels, an optional rate limit), and per key Replace
// and Revoke, each confirmed in the page. A new key is shown once.

import { request } from "../../lib/api.js";
import { byId, el, formatDate, inputById, showError, submitting } from "../../lib/dom.js";
import { actionButton, checkedScopes, confirmIn, scopeChecks, scopeList, showOnce } from "./widgets.js";

/** @typedef {{ id: string, name: string, prefix: string, scopes: string[], rateLimit: number, createdBy: { id: string, name: string } | null, createdAt: string, lastUsedAt: string | null }} ApiKey */

/** @param {{ scopes: { scope: string, label: string }[] }} options */
export async function mountApiKeys({ scopes }) {
  const labels = new Map(scopes.map(({ scope, label }) => [scope, label]));
  const alert = byId("api-keys-error");
  const secret = byId("api-keys-secret");
  const rows = /** @type {HTMLElement} */ (byId("api-keys-table").querySelector("tbody"));
  const form = /** @type {HTMLFormElement} */ (byId("create-key-form"));

  byId("key-scopes").append(...scopeChecks(scopes, "scope"));

  async function refresh() {
    /** @type {ApiKey[]} */
    const keys = (await request("/v1/settings/api-keys")).data;
    rows.replaceChildren(...keys.map(row));
    byId("api-keys-empty").hidden = keys.length > 0;
  }

  /** @param {ApiKey} key */
  function row(key) {
    const actions = el("td", { class: "actions" });
    const replace = actionButton("Replace", alert, () =>
      confirmIn(actions, {
        prompt: `Replace “${key.name}”? The current key stops working at once.`,
        confirmLabel: "Confirm replace",
        alert,
        async onConfirm() {
          const created = (await request(`/v1/settings/api-keys/${key.id}/replace`, { method: "POST" })).data;
          showOnce(secret, {
            title: `New key for “${created.name}”; the old one is revoked.`,
            label: "API key (shown once)",
            value: created.key,
          });
          await refresh();
        },
      }),
    );
    const revoke = actionButton("Revoke", alert, () =>
      confirmIn(actions, {
        prompt: `Revoke “${key.name}”? Applications using it are refused at once.`,
        confirmLabel: "Confirm revoke",
        alert,
        async onConfirm() {
          await request(`/v1/settings/api-keys/${key.id}/revoke`, { method: "POST" });
          await refresh();
        },
      }),
    );
    actions.append(replace, revoke);
    return el("tr", { "data-id": key.id }, [
      el("th", { scope: "row" }, [key.name]),
      el("td", {}, [el("code", {}, [key.prefix])]),
      el("td", {}, [scopeList(labels, key.scopes)]),
      el("td", {}, [key.createdBy?.name ?? "opsroom CLI"]),
      el("td", {}, [formatDate(key.createdAt)]),
      el("td", {}, [formatDate(key.lastUsedAt)]),
      actions,
    ]);
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void submitting(form, alert, async () => {
      const chosen = checkedScopes(form);
      if (chosen.length === 0) throw new Error("Choose at least one scope.");
      const rateLimit = inputById("key-rate-limit").value;
      const body = { name: inputById("key-name").value.trim(), scopes: chosen, ...(rateLimit ? { rateLimit: Number(rateLimit) } : {}) };
      const created = (await request("/v1/settings/api-keys", { body })).data;
      form.reset();
      showOnce(secret, { title: `API key “${created.name}” created.`, label: "API key (shown once)", value: created.key });
      await refresh();
    });
  });

  await refresh().catch((error) => showError(alert, error));
}
