// @ts-check
// What the page shows, kept in the address: the view, the project, and a table's columns, sort and
// filters, so a link or a reload shows the same. Changes replace the history entry (a filter typed
// letter by letter is not a trail of Back steps); a change of view or project adds one.

/** @returns {URLSearchParams} */
export const viewParams = () => new URLSearchParams(location.search);

/**
 * Sets (or, for "" and undefined, removes) parameters of the address.
 * @param {Record<string, string | undefined>} changes @param {{ push?: boolean }} [options]
 */
export function setViewParams(changes, options = {}) {
  const params = viewParams();
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined || value === "") params.delete(name);
    else params.set(name, value);
  }
  const search = params.toString();
  const url = `${location.pathname}${search ? `?${search}` : ""}${location.hash}`;
  if (url === `${location.pathname}${location.search}${location.hash}`) return;
  if (options.push) history.pushState(null, "", url);
  else history.replaceState(null, "", url);
}

/** The table parameters (everything but view and project), to clear when the view changes. */
export function tableParamNames() {
  return [...viewParams().keys()].filter((name) => name !== "view" && name !== "project");
}
