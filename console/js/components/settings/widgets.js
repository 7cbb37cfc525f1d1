// @ts-check
// The settings area's two interactions that need care: a secret shown once (a key, a signing
// secret, an invitation link) with a Copy button, and a destructive action confirmed in the page
// (a second button, not window.confirm).

import { el, showError } from "../../lib/dom.js";

let secrets = 0;

/**
 * Shows `value` once in a read-only field labelled `label`, with Copy. It lives in the page only:
 * after a reload it is gone, and the server never shows it again.
 * @param {HTMLElement} container
 * @param {{ title: string, label: string, value: string }} secret
 */
export function showOnce(container, { title, label, value }) {
  const id = `secret-${++secrets}`;
  const field = /** @type {HTMLInputElement} */ (
    el("input", { id, readonly: true, spellcheck: "false", autocomplete: "off", class: "secret-value" })
  );
  field.value = value;
  const copied = el("span", { role: "status", class: "copied" });
  const copy = el("button", { type: "button" }, ["Copy"]);
  copy.addEventListener("click", async () => {
    field.select();
    try {
      await navigator.clipboard.writeText(value);
      copied.textContent = "Copied";
    } catch {
      copied.textContent = "Select the text and copy it yourself: the browser refused";
    }
  });
  const done = el("button", { type: "button" }, ["Done"]);
  done.addEventListener("click", () => container.replaceChildren());
  container.replaceChildren(
    el("div", { class: "secret" }, [
      el("p", {}, [el("strong", {}, [title]), " Copy it now: it is shown once, and cannot be seen again after you leave this page."]),
      el("label", { for: id }, [label]),
      el("div", { class: "row" }, [field, copy, done, copied]),
    ]),
  );
  field.focus();
  field.select();
}

/**
 * Turns a row's actions cell into a confirmation: a prompt, any `controls` (a choice that goes with
 * it), `confirmLabel` and Cancel. Cancel (or a failed action, whose error goes to `alert`) puts the
 * actions back.
 * @param {HTMLElement} cell
 * @param {{ prompt: string, controls?: Node[], confirmLabel: string, alert: HTMLElement, onConfirm: () => Promise<void> }} options
 */
export function confirmIn(cell, { prompt, controls = [], confirmLabel, alert, onConfirm }) {
  const previous = [...cell.childNodes];
  const confirm = /** @type {HTMLButtonElement} */ (el("button", { type: "button", class: "danger" }, [confirmLabel]));
  const cancel = /** @type {HTMLButtonElement} */ (el("button", { type: "button" }, ["Cancel"]));
  const restore = () => cell.replaceChildren(...previous);
  cancel.addEventListener("click", restore);
  confirm.addEventListener("click", async () => {
    confirm.disabled = cancel.disabled = true;
    showError(alert);
    try {
      await onConfirm();
    } catch (error) {
      showError(alert, error);
      restore();
    }
  });
  cell.replaceChildren(el("span", { class: "prompt" }, [prompt]), ...controls, confirm, cancel);
  confirm.focus();
}

/**
 * A button named by its text that runs `action`, its errors shown in `alert`.
 * @param {string} text @param {HTMLElement} alert @param {(button: HTMLButtonElement) => Promise<void> | void} action
 */
export function actionButton(text, alert, action) {
  const button = /** @type {HTMLButtonElement} */ (el("button", { type: "button" }, [text]));
  button.addEventListener("click", async () => {
    button.disabled = true;
    showError(alert);
    try {
      await action(button);
    } catch (error) {
      showError(alert, error);
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

/**
 * A checkbox per scope, labelled by the scope's label (GET /v1's), for a form's scopes fieldset.
 * @param {{ scope: string, label: string }[]} scopes @param {string} idPrefix
 */
export const scopeChecks = (scopes, idPrefix) =>
  scopes.map(({ scope, label }) => {
    const id = `${idPrefix}-${scope}`;
    return el("div", { class: "check" }, [
      el("input", { type: "checkbox", id, name: "scopes", value: scope }),
      el("label", { for: id }, [label]),
    ]);
  });

/** @param {HTMLFormElement} form @returns {string[]} the scopes ticked in the form */
export const checkedScopes = (form) =>
  [...form.querySelectorAll('input[name="scopes"]:checked')].map((box) => /** @type {HTMLInputElement} */ (box).value);

/**
 * A list of scopes by their labels (the scope's name when it has none).
 * @param {Map<string, string>} labels @param {string[]} scopes
 */
export const scopeList = (labels, scopes) =>
  el(
    "ul",
    { class: "scope-list" },
    scopes.map((scope) => el("li", {}, [labels.get(scope) ?? scope])),
  );
