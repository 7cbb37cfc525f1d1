// @ts-check
// A record's Follow toggle (docs/notifications.md "Who is told"): a button that says whether the
// person follows the record (GET /v1/<records>/{id}/subscription) and follows or unfollows it on a
// click (PUT or DELETE there). aria-pressed carries the state; the label says why they follow it.
// Hidden until the API answers, and left hidden when it refuses (the refusal said in `alert`).
// Mounted in the task drawer (drawer.js), beside a project's heading (record-actions.js) and in a
// risk's dialog (record-form.js).

import { request } from "../lib/api.js";
import { showError } from "../lib/dom.js";

/** @type {Record<string, string>} */
const BECAUSE = {
  assignee: "as its assignee",
  creator: "as its creator",
  commenter: "as a commenter",
  mentioned: "as a person mentioned",
  manual: "",
};

/**
 * @param {{ button: HTMLButtonElement, alert: HTMLElement }} options
 */
export function createFollowToggle({ button, alert }) {
  /** The subscription resource of the record shown. @type {string | null} */ let shown = null;

  /** @param {{ following: boolean, reason: string | null }} state */
  function render({ following, reason }) {
    button.hidden = false;
    button.disabled = false;
    button.setAttribute("aria-pressed", String(following));
    button.textContent = following ? "Following" : "Follow";
    const why = following && reason ? BECAUSE[reason] : "";
    button.title = following
      ? `You are told of its changes${why ? ` (${why})` : ""}: click to unfollow`
      : "Be told of its changes and comments";
  }

  /** Shows the state of the record at `recordPath` (/v1/tasks/<id>, /v1/projects/<id>, /v1/risks/<id>). @param {string} recordPath */
  async function show(recordPath) {
    const path = `${recordPath}/subscription`;
    shown = path;
    button.hidden = true;
    try {
      const { data } = await request(path);
      if (shown === path) render(data);
    } catch (error) {
      if (shown === path) showError(alert, error);
    }
  }

  /** Hides the toggle while no record is shown (a late answer for the last one is dropped). */
  function hide() {
    shown = null;
    button.hidden = true;
  }

  button.addEventListener("click", async () => {
    const path = shown;
    if (!path) return;
    const follow = button.getAttribute("aria-pressed") !== "true";
    button.disabled = true;
    try {
      const { data } = await request(path, { method: follow ? "PUT" : "DELETE" });
      if (shown === path) render(data);
    } catch (error) {
      button.disabled = false;
      showError(alert, error);
    }
  });

  return { show, hide };
}
