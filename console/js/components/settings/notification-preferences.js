// @ts-check
// Settings -> Notifications: per kind, mail at once, in the morning digest or not at all, and
// whether it is shown in the inbox; and the time zone the digest's morning is read in
// (GET and PATCH /v1/settings/notifications, docs/notifications.md). Every person's own.

import { request } from "../../lib/api.js";
import { byId, el, inputById, showError, submitting } from "../../lib/dom.js";

/** The kinds as the API names them, in the order people read them, with what each is. */
const KINDS = [
  ["assigned", "A task assigned to you"],
  ["mentioned", "You are mentioned in a comment"],
  ["commented", "A comment on what you follow"],
  ["changed", "Any other change to what you follow"],
];
const EMAIL = [
  ["immediate", "At once"],
  ["digest", "Daily digest"],
  ["none", "None"],
];

/** @param {{ preferences: Record<string, { email: string, inApp: boolean }>, timeZone: string }} settings */
function show(settings) {
  byId("notification-kinds").replaceChildren(
    ...KINDS.map(([kind, label]) => {
      const chosen = settings.preferences[kind];
      const mail = el(
        "select",
        { id: `notify-${kind}-email`, name: `${kind}-email`, "aria-label": `${label}: mail` },
        EMAIL.map(([value, text]) => el("option", { value, selected: chosen?.email === value }, [text])),
      );
      const inApp = el("input", {
        type: "checkbox",
        id: `notify-${kind}-in-app`,
        "aria-label": `${label}: in the inbox`,
        checked: chosen?.inApp,
      });
      return el("tr", {}, [el("th", { scope: "row" }, [label]), el("td", {}, [mail]), el("td", {}, [inApp])]);
    }),
  );
  inputById("notification-time-zone").value = settings.timeZone;
}

export async function mountNotificationPreferences() {
  const form = /** @type {HTMLFormElement} */ (byId("notifications-form"));
  const alert = byId("notifications-error");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void submitting(form, alert, async () => {
      const preferences = Object.fromEntries(
        KINDS.map(([kind]) => [
          kind,
          {
            email: /** @type {HTMLSelectElement} */ (byId(`notify-${kind}-email`)).value,
            inApp: inputById(`notify-${kind}-in-app`).checked,
          },
        ]),
      );
      const body = { preferences, timeZone: inputById("notification-time-zone").value.trim() };
      show((await request("/v1/settings/notifications", { method: "PATCH", body })).data);
      byId("notifications-status").textContent = "Notification preferences saved.";
    });
  });
  try {
    show((await request("/v1/settings/notifications")).data);
  } catch (error) {
    showError(alert, error);
  }
}
