// @ts-check
// Settings -> Integrations -> Webhooks: register (URL, event patterns; the signing secret shown
// once), and per webhook its delivery log (with Redeliver), Test, Enable/Disable and Delete.

import { request } from "../../lib/api.js";
import { byId, el, formatDate, inputById, showError, submitting } from "../../lib/dom.js";
import { actionButton, confirmIn, showOnce } from "./widgets.js";

const DELIVERIES_REFRESH_MS = 3000;

/** @typedef {{ id: string, url: string, events: string[], enabled: boolean, disabledReason: string | null, createdAt: string }} Webhook */

export async function mountWebhooks() {
  const alert = byId("webhooks-error");
  const status = byId("webhooks-status");
  const rows = /** @type {HTMLElement} */ (byId("webhooks-table").querySelector("tbody"));
  const form = /** @type {HTMLFormElement} */ (byId("create-webhook-form"));
  const log = createDeliveryLog(alert, status);

  async function refresh() {
    /** @type {Webhook[]} */
    const webhooks = (await request("/v1/webhooks?limit=100")).data;
    rows.replaceChildren(...webhooks.map(row));
    byId("webhooks-empty").hidden = webhooks.length > 0;
  }

  /** @param {Webhook} webhook */
  function row(webhook) {
    const actions = el("td", { class: "actions" });
    actions.append(
      actionButton("Deliveries", alert, () => log.open(webhook)),
      actionButton("Test", alert, async () => {
        await request(`/v1/webhooks/${webhook.id}/test`, { method: "POST" });
        status.textContent = `A webhook.test event is queued for ${webhook.url}.`;
        await log.open(webhook);
      }),
      actionButton(webhook.enabled ? "Disable" : "Enable", alert, async () => {
        await request(`/v1/webhooks/${webhook.id}`, { method: "PATCH", body: { enabled: !webhook.enabled } });
        await refresh();
        status.textContent = `${webhook.url} is ${webhook.enabled ? "disabled" : "enabled"}.`;
      }),
      actionButton("Delete", alert, () =>
        confirmIn(actions, {
          prompt: `Delete the webhook to ${webhook.url}? Queued deliveries are dropped.`,
          confirmLabel: "Confirm delete",
          alert,
          async onConfirm() {
            await request(`/v1/webhooks/${webhook.id}`, { method: "DELETE" });
            log.closeIf(webhook.id);
            await refresh();
            status.textContent = `The webhook to ${webhook.url} is deleted.`;
          },
        }),
      ),
    );
    const state = webhook.enabled ? "Enabled" : `Disabled${webhook.disabledReason ? `: ${webhook.disabledReason}` : ""}`;
    return el("tr", { "data-id": webhook.id }, [
      el("th", { scope: "row" }, [el("code", {}, [webhook.url])]),
      el("td", {}, [webhook.events.length ? webhook.events.join(", ") : "every event"]),
      el("td", {}, [state]),
      el("td", {}, [formatDate(webhook.createdAt)]),
      actions,
    ]);
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void submitting(form, alert, async () => {
      const events = inputById("webhook-events")
        .value.split(",")
        .map((pattern) => pattern.trim())
        .filter(Boolean);
      const body = { url: inputById("webhook-url").value.trim(), ...(events.length ? { events } : {}) };
      const created = (await request("/v1/webhooks", { body })).data;
      form.reset();
      showOnce(byId("webhooks-secret"), {
        title: `Webhook to ${created.url} registered.`,
        label: "Signing secret (shown once)",
        value: created.secret,
      });
      await refresh();
    });
  });

  await refresh().catch((error) => showError(alert, error));
}

/**
 * The delivery log of one webhook at a time, newest first, refreshed while it is open.
 * @param {HTMLElement} alert @param {HTMLElement} status
 */
function createDeliveryLog(alert, status) {
  const panel = byId("deliveries");
  const rows = /** @type {HTMLElement} */ (byId("deliveries-table").querySelector("tbody"));
  /** @type {Webhook | null} */
  let shown = null;
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let timer;

  async function refresh() {
    if (!shown) return;
    const webhook = shown;
    const deliveries = (await request(`/v1/webhooks/${webhook.id}/deliveries?limit=50`)).data;
    if (shown !== webhook) return;
    rows.replaceChildren(...deliveries.map((/** @type {any} */ delivery) => row(webhook, delivery)));
    byId("deliveries-empty").hidden = deliveries.length > 0;
  }

  /** @param {Webhook} webhook @param {any} delivery */
  function row(webhook, delivery) {
    const redeliver = actionButton("Redeliver", alert, async () => {
      await request(`/v1/webhooks/${webhook.id}/deliveries/${delivery.id}/redeliver`, { method: "POST" });
      await refresh();
      status.textContent = `${delivery.eventType} is queued for ${webhook.url} again.`;
    });
    const response = delivery.responseStatus ? `HTTP ${delivery.responseStatus}` : (delivery.error ?? "");
    return el("tr", { "data-id": delivery.id }, [
      el("th", { scope: "row" }, [delivery.eventType]),
      el("td", {}, [String(delivery.attempt)]),
      el("td", { class: `outcome-${delivery.outcome}` }, [delivery.outcome]),
      el("td", {}, [response]),
      el("td", {}, [delivery.durationMs === null ? "" : `${delivery.durationMs} ms`]),
      el("td", {}, [formatDate(delivery.createdAt)]),
      el("td", { class: "actions" }, [redeliver]),
    ]);
  }

  function close() {
    shown = null;
    clearInterval(timer);
    panel.hidden = true;
  }
  byId("close-deliveries").addEventListener("click", close);

  return {
    /** @param {Webhook} webhook */
    async open(webhook) {
      if (shown?.id !== webhook.id) rows.replaceChildren();
      shown = webhook;
      byId("deliveries-heading").textContent = `Deliveries to ${webhook.url}`;
      panel.hidden = false;
      clearInterval(timer);
      timer = setInterval(() => void refresh().catch((error) => showError(alert, error)), DELIVERIES_REFRESH_MS);
      await refresh();
    },
    /** @param {string} webhookId */
    closeIf(webhookId) {
      if (shown?.id === webhookId) close();
    },
  };
}
