// @ts-check
// One control per field of a record form, built from the field's schema (lib/schema.js): a select
// for an enum or a reference, checkboxes for labels, a date, number, email, text or textarea input
// with the schema's limits, a checkbox for a flag. Each has its label (marked when required), the
// schema's description as its hint, and an empty error line that a refusal fills (record-form.js).
// `readField` answers the value to send: typed, null for an emptied nullable field, undefined for
// an empty optional one.

import { el } from "../lib/dom.js";
import { isLongText } from "../lib/schema.js";

/** @typedef {import("../lib/schema.js").Field} Field */
/** @typedef {{ store: import("../lib/store.js").Store, projectId: string | null, recordId: string | null }} FieldContext */

/** The id of a field's control, hint and error line. @param {string} name */
export const controlId = (name) => `rf-${name}`;

/** What a reference may name, as [id, name] pairs. @param {Field} field @param {FieldContext} context @returns {[string, string][]} */
function choicesOf(field, context) {
  const { state } = context.store;
  const pairs = (/** @type {Iterable<any>} */ records, /** @type {(r: any) => string} */ name) =>
    [...records].map((record) => /** @type {[string, string]} */ ([record.id, name(record)])).sort((a, b) => a[1].localeCompare(b[1]));
  const inProject = (/** @type {Map<string, any>} */ map) => [...map.values()].filter((r) => r.projectId === context.projectId);
  switch (field.refers) {
    case "people":
      // The API takes only active people.
      return pairs(
        [...state.people.values()].filter((p) => p.active !== false),
        (p) => p.name,
      );
    case "projects":
      return pairs(state.projects.values(), (p) => p.name);
    case "milestones":
      return pairs(inProject(state.milestones), (m) => m.name);
    case "tasks":
      return pairs(
        inProject(state.tasks).filter((t) => t.id !== context.recordId),
        (t) => t.title,
      );
    case "labels":
      return pairs(state.labels.values(), (l) => l.name);
    default:
      return [];
  }
}

/** @param {string} value @param {string} text @param {boolean} selected */
const option = (value, text, selected) => el("option", { value, selected }, [text]);

/** @param {Field} field @param {any} value @param {FieldContext} context @param {Record<string, string | boolean | undefined>} common */
function control(field, value, context, common) {
  const { schema } = field;
  if (field.refers === "labels") {
    return el(
      "div",
      { class: "checks" },
      choicesOf(field, context).map(([id, name]) =>
        el("label", {}, [el("input", { type: "checkbox", name: field.name, value: id, checked: (value ?? []).includes(id) }), name]),
      ),
    );
  }
  const enumValues = schema.enum?.filter((v) => v !== null);
  if (field.refers || enumValues) {
    const choices = field.refers
      ? choicesOf(field, context)
      : (enumValues ?? []).map((v) => /** @type {[string, string]} */ ([`${v}`, `${v}`.replace("_", " ")]));
    const blank = field.nullable ? "None" : field.required ? "Choose…" : "Default";
    const showBlank = field.nullable || value === undefined || value === null;
    return el("select", common, [
      ...(showBlank ? [option("", blank, value === undefined || value === null)] : []),
      ...choices.map(([id, name]) => option(id, name, id === value)),
    ]);
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (type === "boolean") {
    const on = value ?? /defaults to true/i.test(schema.description ?? "");
    return el("input", { ...common, type: "checkbox", checked: Boolean(on) });
  }
  const limits = {
    minlength: schema.minLength !== undefined ? String(schema.minLength) : undefined,
    maxlength: schema.maxLength !== undefined ? String(schema.maxLength) : undefined,
    value: value === undefined || value === null ? "" : String(value),
  };
  if (type === "number" || type === "integer") {
    return el("input", {
      ...common,
      type: "number",
      value: limits.value,
      min: schema.minimum !== undefined ? String(schema.minimum) : undefined,
      max: schema.maximum !== undefined ? String(schema.maximum) : undefined,
      step: schema.multipleOf !== undefined ? String(schema.multipleOf) : type === "integer" ? "1" : "any",
    });
  }
  if (isLongText(schema)) {
    const area = el("textarea", { ...common, rows: "4", maxlength: limits.maxlength });
    /** @type {HTMLTextAreaElement} */ (area).value = limits.value;
    return area;
  }
  const inputType = schema.format === "date" ? "date" : schema.format === "email" ? "email" : "text";
  return el("input", { ...common, type: inputType, ...limits, pattern: schema.pattern, autocomplete: "off" });
}

/**
 * The field's row: label, control, hint and error line.
 * @param {Field} field @param {any} value the record's current value (undefined on a create) @param {FieldContext} context
 */
export function fieldRow(field, value, context) {
  const id = controlId(field.name);
  const hint = field.schema.description;
  const describedBy = [hint ? `${id}-hint` : "", `${id}-error`].filter(Boolean).join(" ");
  const common = { id, name: field.name, required: field.required, "aria-describedby": describedBy };
  const input = control(field, value, context, common);
  const mark = field.required ? [" ", el("span", { class: "required" }, ["(required)"])] : [];
  const isGroup = field.refers === "labels";
  const heading = isGroup ? el("legend", {}, [field.label, ...mark]) : el("label", { for: id }, [field.label, ...mark]);
  if (isGroup) input.setAttribute("aria-describedby", describedBy);
  return el(isGroup ? "fieldset" : "div", { class: "field", "data-field": field.name }, [
    heading,
    input,
    ...(hint ? [el("p", { class: "hint", id: `${id}-hint` }, [hint])] : []),
    el("p", { class: "field-error", id: `${id}-error` }),
  ]);
}

/**
 * The value the form holds for a field, typed as the API takes it.
 * @param {HTMLFormElement} form @param {Field} field
 */
export function readField(form, field) {
  if (field.refers === "labels") {
    return [...form.querySelectorAll(`input[name="${field.name}"]:checked`)].map((box) => /** @type {HTMLInputElement} */ (box).value);
  }
  const input = /** @type {HTMLInputElement} */ (form.querySelector(`#${controlId(field.name)}`));
  if (input.type === "checkbox") return input.checked;
  const raw = input.value.trim();
  if (raw === "") return field.nullable ? null : undefined;
  return input.type === "number" ? Number(raw) : raw;
}
