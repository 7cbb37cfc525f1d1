// @ts-check
// Settings -> Members: everyone in the organisation with their role. Owners and admins also
// change roles, remove members, invite (the one-time link shown once with Copy) and revoke open
// invitations. Only an owner is offered "owner" as a role, and only an owner changes an owner.

import { request } from "../../lib/api.js";
import { byId, el, formatDate, inputById, showError, submitting } from "../../lib/dom.js";
import { actionButton, confirmIn, showOnce } from "./widgets.js";

/** @type {Record<string, string>} */
const ROLE_LABELS = { owner: "Owner", admin: "Admin", member: "Member" };

/** @typedef {{ userId: string, name: string, email: string, role: "owner" | "admin" | "member", joinedAt: string }} Member */

/** @param {{ session: import("../../lib/session.js").Session, manages: boolean }} options */
export async function mountMembers({ session, manages }) {
  const alert = byId("members-error");
  const status = byId("members-status");
  const rows = /** @type {HTMLElement} */ (byId("members-table").querySelector("tbody"));
  const roles = session.role === "owner" ? ["owner", "admin", "member"] : ["admin", "member"];

  async function refresh() {
    /** @type {Member[]} */
    const members = (await request("/v1/settings/members")).data;
    rows.replaceChildren(...members.map(row));
  }

  /** @param {Member} member */
  function row(member) {
    const self = member.userId === session.user.id;
    const editable = manages && !self && roles.includes(member.role);
    const actions = el("td", { class: "actions" });
    if (editable) {
      actions.append(
        actionButton("Remove", alert, () =>
          confirmIn(actions, {
            prompt: `Remove ${member.name} from ${session.organisation.name}?`,
            confirmLabel: "Confirm remove",
            alert,
            async onConfirm() {
              await request(`/v1/settings/members/${member.userId}`, { method: "DELETE" });
              await refresh();
              status.textContent = `${member.name} was removed.`;
            },
          }),
        ),
      );
    }
    return el("tr", { "data-id": member.userId }, [
      el("th", { scope: "row" }, [member.name, self ? " (you)" : ""]),
      el("td", {}, [member.email]),
      el("td", {}, editable ? roleSelect(member) : [ROLE_LABELS[member.role]]),
      el("td", {}, [formatDate(member.joinedAt)]),
      actions,
    ]);
  }

  /** @param {Member} member */
  function roleSelect(member) {
    const id = `role-${member.userId}`;
    const select = /** @type {HTMLSelectElement} */ (
      el(
        "select",
        { id },
        roles.map((role) => el("option", { value: role, selected: role === member.role }, [ROLE_LABELS[role]])),
      )
    );
    select.addEventListener("change", async () => {
      showError(alert);
      select.disabled = true;
      let done = "";
      try {
        await request(`/v1/settings/members/${member.userId}`, { method: "PATCH", body: { role: select.value } });
        done = `${member.name} is now ${ROLE_LABELS[select.value]}.`;
      } catch (error) {
        showError(alert, error);
      }
      await refresh();
      // Said once the list is redrawn: the rows seen after it are the ones that stay.
      if (done) status.textContent = done;
    });
    return [el("label", { for: id, class: "visually-hidden" }, [`Role of ${member.name}`]), select];
  }

  // The invitation form is set up at once (before either list answers).
  await Promise.all([refresh().catch((error) => showError(alert, error)), manages ? mountInvitations(roles, alert) : undefined]);
}

/** @param {string[]} roles @param {HTMLElement} alert */
async function mountInvitations(roles, alert) {
  const rows = /** @type {HTMLElement} */ (byId("invitations-table").querySelector("tbody"));
  const form = /** @type {HTMLFormElement} */ (byId("invite-form"));
  const roleField = /** @type {HTMLSelectElement} */ (byId("invite-role"));
  roleField.replaceChildren(...roles.map((role) => el("option", { value: role, selected: role === "member" }, [ROLE_LABELS[role]])));

  async function refresh() {
    const invitations = (await request("/v1/settings/invitations")).data;
    rows.replaceChildren(...invitations.map(row));
    byId("invitations-empty").hidden = invitations.length > 0;
  }

  /** @param {any} invitation */
  function row(invitation) {
    const actions = el("td", { class: "actions" });
    actions.append(
      actionButton("Revoke", alert, () =>
        confirmIn(actions, {
          prompt: `Revoke the invitation for ${invitation.email}? Its link stops working.`,
          confirmLabel: "Confirm revoke",
          alert,
          async onConfirm() {
            await request(`/v1/settings/invitations/${invitation.id}`, { method: "DELETE" });
            await refresh();
          },
        }),
      ),
    );
    return el("tr", { "data-id": invitation.id }, [
      el("th", { scope: "row" }, [invitation.email]),
      el("td", {}, [ROLE_LABELS[invitation.role] ?? invitation.role]),
      el("td", {}, [invitation.invitedBy?.name ?? ""]),
      el("td", {}, [formatDate(invitation.expiresAt)]),
      actions,
    ]);
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void submitting(form, alert, async () => {
      const body = { email: inputById("invite-email").value.trim(), role: roleField.value };
      const created = (await request("/v1/settings/invitations", { body })).data;
      form.reset();
      roleField.value = "member";
      showOnce(byId("invitation-secret"), {
        title: `Invitation for ${created.email} as ${ROLE_LABELS[created.role]}: it is mailed to them, and here to hand over too.`,
        label: "Invitation link (shown once)",
        value: created.url,
      });
      await refresh();
    });
  });

  await refresh().catch((error) => showError(alert, error));
}
