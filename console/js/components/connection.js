// @ts-check
// The top bar's word on the realtime room: connecting, catching up, live (with the changeVersion
// applied last), reconnecting or refused, and what went wrong when it did.

/** @type {Record<string, string>} */
const WORDS = {
  connecting: "Connecting…",
  "catching-up": "Catching up…",
  live: "Live",
  reconnecting: "Disconnected, reconnecting",
  failed: "Refused",
};

/** @param {string} state @param {string} [detail] @param {number} [changeVersion] */
export function showConnection(state, detail, changeVersion) {
  const status = /** @type {HTMLElement} */ (document.getElementById("connection"));
  status.dataset.state = state;
  const parts = [
    WORDS[state] ?? state,
    detail,
    state === "live" && changeVersion !== undefined ? `changeVersion ${changeVersion}` : undefined,
  ];
  /** @type {HTMLElement} */ (document.getElementById("connection-text")).textContent = parts.filter(Boolean).join(" · ");
}
