// @ts-check
// settings.html: Settings -> Integrations (API keys, webhooks, applications, installed applications),
// Members and the Audit log, and one's own address and notification preferences, as the person signed in. Owners and admins manage; a member sees the members list
// and, in place of the controls, that the section needs an owner or admin (the API would answer
// 403 insufficient_role anyway).

import { renderAccount } from "../components/account.js";
import { mountAddress } from "../components/settings/address.js";
import { mountApiKeys } from "../components/settings/api-keys.js";
import { mountApplications } from "../components/settings/applications.js";
import { mountAuditLog } from "../components/settings/audit-log.js";
import { mountInstallations } from "../components/settings/installations.js";
import { mountMembers } from "../components/settings/members.js";
import { mountNotificationPreferences } from "../components/settings/notification-preferences.js";
import { mountWebhooks } from "../components/settings/webhooks.js";
import { request } from "../lib/api.js";
import { byId, showError } from "../lib/dom.js";
import { goToSignIn, requireSession } from "../lib/session.js";

const MANAGING_ROLES = ["owner", "admin"];

async function start() {
  const session = await requireSession();
  renderAccount(byId("account"), session, { settingsLink: false });
  byId("organisation").textContent = session.organisation.name;
  mountAddress({ session });
  await mountNotificationPreferences();
  const manages = MANAGING_ROLES.includes(session.role);
  // A member's page holds no managing controls at all, not merely hidden ones.
  for (const section of document.querySelectorAll(".panel")) {
    if (manages) section.querySelector(".needs-role")?.remove();
    else {
      section.querySelector(".managers-only")?.remove();
      /** @type {HTMLElement | null} */ (section.querySelector(".needs-role"))?.removeAttribute("hidden");
    }
  }
  if (!manages) await mountMembers({ session, manages });
  else {
    // GET /v1 names the scopes the person holds, with their labels (owners and admins: all).
    const { scopes } = await request("/v1");
    await Promise.all([
      mountApiKeys({ scopes }),
      mountWebhooks(),
      mountApplications({ scopes, role: session.role }),
      mountInstallations({ scopes }),
      mountMembers({ session, manages }),
      mountAuditLog(),
    ]);
  }
  // Shown once every form has its handler: a form used before would submit natively (a page load)
  // and lose what was typed.
  byId("settings").hidden = false;
}

start().catch((error) => {
  if (error?.status === 401) return goToSignIn();
  byId("settings").hidden = false;
  showError(byId("settings-error"), error);
});
