import type { Sortable } from "./paging.ts";
import {
  ISSUE_STATUSES,
  MILESTONE_STATUSES,
  PROJECT_STATUSES,
  RISK_STATUSES,
  TASK_PRIORITIES,
  TASK_STATUSES,
  FINANCIAL_ENTRY_KINDS,
} from "./records.ts";
import type { Assert } from "./type-equality.ts";

// Each record resource declared once: what it is called, where it lives, which scopes read and
// change it (and so which scope sees its events), what its lists sort and filter by. The scope
// table (scopes.ts), the events' scopes (events.ts), the statements (db/statements/engine/resource.ts,
// filters.ts), the services (noun), the routes (tag, paths, operation names, scopes, list query)
// and the event catalogue are built from it. A new resource is its table, this declaration, its
// schemas and its tests (README "What a new resource costs").

/**
 * The pairs of scopes keys hold, in the order the scope table lists them (GET /v1, the OpenAPI
 * guide, the console's key form): <group>.read and <group>.manage, with what each grants. A
 * resource names the group that covers it; organisation and webhooks also cover what is no record
 * resource (the organisation itself, webhooks and their deliveries).
 */
export const SCOPE_GROUPS = {
  organisation: { read: "Read the organisation", manage: "Manage the organisation" },
  projects: { read: "Read projects and milestones", manage: "Create and change projects and milestones" },
  tasks: { read: "Read tasks", manage: "Create and change tasks" },
  risks: { read: "Read risks", manage: "Create and change risks" },
  issues: { read: "Read issues", manage: "Create and change issues" },
  financials: { read: "Read financial entries and project finances", manage: "Create and change financial entries" },
  webhooks: { read: "Read webhooks", manage: "Register and change webhooks" },
} as const;

export type ScopeGroup = keyof typeof SCOPE_GROUPS;

/**
 * How a list's ?<name>= narrows it, over one public field of the record (`field`): the field is
 * this id (`id`), one of these values (`oneOf`, ?status=todo,blocked), a date strictly before or
 * after this one, an instant at or after this one (`since`), true or false (`flag`), an array
 * of ids holding this one (`holds`), or a person's id or `me` (`person`: the personnel record the
 * calling member is, docs/people.md "Members and personnel"). `description` is the query
 * parameter's, in the document.
 */
export type ListFilter =
  | { kind: "id" | "before" | "after" | "since" | "flag" | "holds" | "person"; field: string; description: string }
  | { kind: "oneOf"; field: string; values: readonly [string, ...string[]] };

export const filterOn = {
  id: (field: string, description: string) => ({ kind: "id", field, description }) as const,
  oneOf: <const V extends readonly [string, ...string[]]>(field: string, values: V) => ({ kind: "oneOf", field, values }) as const,
  before: (field: string, description: string) => ({ kind: "before", field, description }) as const,
  after: (field: string, description: string) => ({ kind: "after", field, description }) as const,
  since: (field: string, description: string) => ({ kind: "since", field, description }) as const,
  flag: (field: string, description: string) => ({ kind: "flag", field, description }) as const,
  holds: (field: string, description: string) => ({ kind: "holds", field, description }) as const,
  person: (field: string, description: string) => ({ kind: "person", field, description }) as const,
};

/** What a `person` filter takes for "the caller's own personnel record". */
export const ME = "me";

/** The value a validated query gives a filter: the values listed, a flag, or an id, date or instant as text. */
export type FilterValue<F> = F extends { kind: "oneOf"; values: infer V extends readonly string[] }
  ? V[number][]
  : F extends { kind: "flag" }
    ? boolean
    : string;

/** A list's filters as the statements take them: every declared filter, and ?externalId=, each optional. */
export type FiltersOf<D extends { filters: Readonly<Record<string, ListFilter>> }> = { externalId?: string | undefined } & {
  -readonly [K in keyof D["filters"]]?: FilterValue<D["filters"][K]> | undefined;
};

export interface ResourceDeclaration {
  /** The event name prefix and the record's type: "task" gives task.created, task.updated, task.deleted. */
  type: string;
  /** Singular and plural, as messages say them ("task not found", "3 financial entries"). */
  nouns: readonly [singular: string, plural: string];
  /** The collection's path segment: /v1/<path>; a record lives at /v1/<path>/{id}. */
  path: string;
  /** The scopes that read it (and see its events) and change it: <scopes>.read, <scopes>.manage. */
  scopes: ScopeGroup;
  /**
   * For records that belong to another (a task's comments): the parent's type. They are listed and
   * created under it (/v1/<parent's path>/{id}/<path>), and their field <parent>Id names it.
   */
  parent?: string;
  /** What its lists sort by, besides creation order (domain/paging.ts). */
  sortable: Sortable;
  /** Its lists' filters by query parameter, in the document's order (?externalId= comes with every list). */
  filters: Readonly<Record<string, ListFilter>>;
}

const CREATED = { createdAt: "timestamp", updatedAt: "timestamp" } as const;
const inProject = filterOn.id("projectId", "Only the records of this project.");

/**
 * The record resources, in the order of the event catalogue. Webhooks (WEBHOOKS, below) are
 * settings rather than records: they emit no events and have routes of their own.
 */
export const RESOURCES = {
  task: {
    type: "task",
    nouns: ["task", "tasks"],
    path: "tasks",
    scopes: "tasks",
    sortable: {
      dueDate: "date",
      priority: { rank: TASK_PRIORITIES },
      status: { rank: TASK_STATUSES },
      title: "text",
      ...CREATED,
    },
    filters: {
      projectId: filterOn.id("projectId", "Only the tasks of this project."),
      assigneeId: filterOn.person(
        "assigneeId",
        "Only the tasks assigned to this person; `me`: to the person the signed-in member is (refused for an API key, or a member linked to no person).",
      ),
      milestoneId: filterOn.id("milestoneId", "Only the tasks of this milestone."),
      parentId: filterOn.id("parentId", "Only the subtasks of this task."),
      labelId: filterOn.holds("labelIds", "Only the tasks with this label."),
      status: filterOn.oneOf("status", TASK_STATUSES),
      priority: filterOn.oneOf("priority", TASK_PRIORITIES),
      dueBefore: filterOn.before("dueDate", "Tasks due strictly before this date."),
      dueAfter: filterOn.after("dueDate", "Tasks due strictly after this date."),
      startBefore: filterOn.before("startDate", "Tasks starting strictly before this date (those with no startDate are left out)."),
      startAfter: filterOn.after("startDate", "Tasks starting strictly after this date (those with no startDate are left out)."),
      updatedSince: filterOn.since("updatedAt", "Tasks changed at or after this instant (ISO 8601)."),
    },
  },
  label: {
    type: "label",
    nouns: ["label", "labels"],
    path: "labels",
    scopes: "tasks",
    sortable: { name: "text", ...CREATED },
    filters: {},
  },
  comment: {
    type: "comment",
    nouns: ["comment", "comments"],
    path: "comments",
    scopes: "tasks",
    parent: "task",
    sortable: CREATED,
    filters: {},
  },
  checklistItem: {
    type: "checklistItem",
    nouns: ["checklist item", "checklist items"],
    path: "checklist-items",
    scopes: "tasks",
    parent: "task",
    sortable: CREATED,
    filters: { done: filterOn.flag("done", "true: only the items done; false: only those still to do.") },
  },
  project: {
    type: "project",
    nouns: ["project", "projects"],
    path: "projects",
    scopes: "projects",
    sortable: { name: "text", startDate: "date", endDate: "date", status: { rank: PROJECT_STATUSES }, ...CREATED },
    filters: { status: filterOn.oneOf("status", PROJECT_STATUSES) },
  },
  milestone: {
    type: "milestone",
    nouns: ["milestone", "milestones"],
    path: "milestones",
    scopes: "projects",
    parent: "project",
    sortable: { dueDate: "date", name: "text", status: { rank: MILESTONE_STATUSES }, ...CREATED },
    filters: { status: filterOn.oneOf("status", MILESTONE_STATUSES) },
  },
  personnel: {
    type: "personnel",
    nouns: ["person", "people"],
    path: "personnel",
    scopes: "organisation",
    sortable: { name: "text", ...CREATED },
    filters: { active: filterOn.flag("active", "true or false.") },
  },
  risk: {
    type: "risk",
    nouns: ["risk", "risks"],
    path: "risks",
    scopes: "risks",
    sortable: { title: "text", status: { rank: RISK_STATUSES }, ...CREATED },
    filters: { projectId: inProject, status: filterOn.oneOf("status", RISK_STATUSES) },
  },
  issue: {
    type: "issue",
    nouns: ["issue", "issues"],
    path: "issues",
    scopes: "issues",
    sortable: { title: "text", status: { rank: ISSUE_STATUSES }, ...CREATED },
    filters: { projectId: inProject, status: filterOn.oneOf("status", ISSUE_STATUSES) },
  },
  financialEntry: {
    type: "financialEntry",
    nouns: ["financial entry", "financial entries"],
    path: "financial-entries",
    scopes: "financials",
    sortable: { date: "date", ...CREATED },
    filters: { projectId: inProject, kind: filterOn.oneOf("kind", FINANCIAL_ENTRY_KINDS) },
  },
} as const satisfies Record<string, ResourceDeclaration>;

export type ResourceType = keyof typeof RESOURCES;

// Each resource is declared under its own type, and a parent is a resource declared here.
type _KeyedByType = Assert<{ [K in ResourceType]: (typeof RESOURCES)[K]["type"] extends K ? true : false }[ResourceType]>;
type Parents = { [K in ResourceType]: (typeof RESOURCES)[K] extends { parent: infer P } ? P : never }[ResourceType];
type _ParentsDeclared = Assert<Parents extends ResourceType ? true : false>;

/** Webhooks: integration settings of the organisation, with the webhooks scopes; no event, no list filter. */
export const WEBHOOKS = {
  type: "webhook",
  nouns: ["webhook", "webhooks"],
  path: "webhooks",
  scopes: "webhooks",
  sortable: {},
  filters: {},
} as const satisfies ResourceDeclaration;

/** The read and manage scope of a resource. */
export const scopesOf = (declaration: ResourceDeclaration) =>
  ({ read: `${declaration.scopes}.read`, manage: `${declaration.scopes}.manage` }) as const;
