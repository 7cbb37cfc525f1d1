// @ts-check
// Small DOM helpers shared by the console's pages: building elements, showing an error in the
// page's role="alert" element, and dates as people read them.

/**
 * An element with attributes (a `true` attribute is set empty, `false`/undefined left out) and children.
 * @param {string} tag
 * @param {Record<string, string | boolean | undefined>} [attributes]
 * @param {(Node | string)[]} [children]
 * @returns {HTMLElement}
 */
export function el(tag, attributes = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === true) node.setAttribute(name, "");
    else if (typeof value === "string") node.setAttribute(name, value);
  }
  node.append(...children);
  return node;
}

/**
 * Makes `nodes` the children of `parent`, in order, moving only those out of place and removing the
 * rest: a keyed list (cards, rows) changes only where it changed. An empty parent is filled at once.
 * @param {HTMLElement} parent @param {HTMLElement[]} nodes
 */
export function placeInOrder(parent, nodes) {
  if (parent.firstElementChild === null) {
    const fragment = document.createDocumentFragment();
    fragment.append(...nodes);
    return void parent.append(fragment);
  }
  // Those no longer wanted first: a node left in place would push every later one past it.
  const wanted = new Set(nodes);
  for (const child of [...parent.children]) if (!wanted.has(/** @type {HTMLElement} */ (child))) child.remove();
  let at = /** @type {Element | null} */ (parent.firstElementChild);
  for (const node of nodes) {
    if (node === at) at = at.nextElementSibling;
    // `at` comes later now: passed over, and moved into place when its turn comes.
    else if (at && at.nextElementSibling === node) at = node.nextElementSibling;
    else parent.insertBefore(node, at);
  }
}

/** @param {string} id */
export const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @param {string} id */
export const inputById = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));

/**
 * Shows what the server answered (its envelope's message) in a role="alert" element; nothing clears it.
 * @param {HTMLElement} alert @param {unknown} [error]
 */
export function showError(alert, error) {
  alert.textContent = error ? (error instanceof Error ? error.message : String(error)) : "";
}

/** @param {string | null | undefined} iso */
export function formatDate(iso) {
  return iso ? new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) : "never";
}

/**
 * Runs `action` with the form's submit button disabled; its errors go to `alert`.
 * @param {HTMLFormElement} form @param {HTMLElement} alert @param {() => Promise<void>} action
 */
export async function submitting(form, alert, action) {
  const buttons = [...form.querySelectorAll("button")];
  buttons.forEach((button) => (button.disabled = true));
  showError(alert);
  try {
    await action();
  } catch (error) {
    showError(alert, error);
  } finally {
    buttons.forEach((button) => (button.disabled = false));
  }
}
