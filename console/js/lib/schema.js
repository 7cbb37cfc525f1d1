// @ts-check
// The record kinds the console makes and changes, and their forms' fields, all read from the API's
// own request schemas (forms.generated.js, generated from the OpenAPI document): which fields, of
// what type, which are required, their limits and enums. Nothing here restates a field.

import { OPERATIONS, SCHEMAS } from "./forms.generated.js";

/**
 * A JSON schema of one property, as the OpenAPI document writes it.
 * @typedef {{ type?: string | string[], enum?: (string | null)[], format?: string, pattern?: string, minLength?: number, maxLength?: number, minimum?: number, maximum?: number, multipleOf?: number, description?: string, items?: PropertySchema, [other: string]: unknown }} PropertySchema
 */
/** @typedef {{ type: string, properties: Record<string, PropertySchema>, required?: string[], additionalProperties?: boolean }} ObjectSchema */

/**
 * A form field: the property's name and schema, whether it is required and may be null, and what
 * it names when it is a reference (people, a project, a milestone, a task, labels).
 * @typedef {{ name: string, schema: PropertySchema, required: boolean, nullable: boolean, refers: Refers | null, label: string }} Field
 */
/** @typedef {"people" | "projects" | "milestones" | "tasks" | "labels"} Refers */

/**
 * The record kinds: their store collection, the event prefix, the name the operations use
 * (create<Name>, update<Name>, delete<Name>) and what names one record in a sentence.
 * @typedef {{ key: string, noun: string, name: string, collection: import("./store.js").Collection, event: string, titleOf: (record: any) => string }} Kind
 */

/** @type {Record<string, Kind>} */
export const KINDS = {
  project: { key: "project", noun: "project", name: "Project", collection: "projects", event: "project", titleOf: (r) => r.name },
  milestone: {
    key: "milestone",
    noun: "milestone",
    name: "Milestone",
    collection: "milestones",
    event: "milestone",
    titleOf: (r) => r.name,
  },
  task: { key: "task", noun: "task", name: "Task", collection: "tasks", event: "task", titleOf: (r) => r.title },
  label: { key: "label", noun: "label", name: "Label", collection: "labels", event: "label", titleOf: (r) => r.name },
  person: { key: "person", noun: "person", name: "Person", collection: "people", event: "personnel", titleOf: (r) => r.name },
  risk: { key: "risk", noun: "risk", name: "Risk", collection: "risks", event: "risk", titleOf: (r) => r.title },
  issue: { key: "issue", noun: "issue", name: "Issue", collection: "issues", event: "issue", titleOf: (r) => r.title },
  financialEntry: {
    key: "financialEntry",
    noun: "financial entry",
    name: "FinancialEntry",
    collection: "entries",
    event: "financialEntry",
    titleOf: (r) => `${r.kind} ${r.amount} ${r.currency} on ${r.date}`,
  },
  checklistItem: {
    key: "checklistItem",
    noun: "checklist item",
    name: "ChecklistItem",
    collection: "checklist",
    event: "checklistItem",
    titleOf: (r) => r.title,
  },
};

/** Fields a form never shows: the id in another system (integrations set it) and the parent named by the page. */
const HIDDEN = new Set(["externalId"]);

/** @type {Record<string, Refers>} */
const REFERENCES = {
  projectId: "projects",
  assigneeId: "people",
  ownerId: "people",
  reporterId: "people",
  milestoneId: "milestones",
  parentId: "tasks",
  labelIds: "labels",
};

/** "dueDate" → "Due date", "assigneeId" → "Assignee", "labelIds" → "Labels". @param {string} name */
export function labelOfField(name) {
  const words = name
    .replace(/Ids$/, "s")
    .replace(/Id$/, "")
    .replace(/([A-Z])/g, " $1")
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Prose (descriptions, mitigations): written in a textarea, searched rather than shown as a column. @param {PropertySchema} schema */
export const isLongText = (schema) => (schema.maxLength ?? 0) > 1000 && !schema.format;

/** @param {PropertySchema} schema */
const isNullable = (schema) => (Array.isArray(schema.type) && schema.type.includes("null")) || (schema.enum ?? []).includes(null);

/**
 * The operation of a kind: create, update or delete, with its path, method, scope and body schema.
 * @param {"create" | "update" | "delete"} verb @param {Kind} kind
 */
export function operationOf(verb, kind) {
  const operation = OPERATIONS[`${verb}${kind.name}`];
  return operation ? { ...operation, schema: operation.body ? SCHEMAS[operation.body] : undefined } : undefined;
}

/**
 * The fields of a kind's create or update form, in the schema's order.
 * @param {"create" | "update"} verb @param {Kind} kind
 * @returns {Field[]}
 */
export function fieldsOf(verb, kind) {
  const schema = operationOf(verb, kind)?.schema;
  if (!schema) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties)
    .filter(([name]) => !HIDDEN.has(name))
    .map(([name, property]) => ({
      name,
      schema: property,
      required: required.has(name),
      nullable: isNullable(property),
      refers: REFERENCES[name] ?? null,
      label: labelOfField(name),
    }));
}

/** The kinds a person may change: those whose create or update scope their session holds. @param {Set<string>} scopes @param {Kind} kind */
export function canManage(scopes, kind) {
  const scope = operationOf("update", kind)?.scope ?? operationOf("create", kind)?.scope;
  return scope ? scopes.has(scope) : false;
}
