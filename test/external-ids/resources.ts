import type { Scope } from "../../domain/scopes.ts";
import type { Tenant } from "../helpers/fixtures.ts";
import { financialEntryBody, issueBody, riskBody } from "../helpers/project-records.ts";
import { milestoneBody, personBody, projectBody, taskBody, unique } from "../helpers/resources.ts";

// The seven resources that carry an externalId, as tables the tests of this folder run over:
// where each is created, listed and upserted, a body each accepts, a change of an ordinary
// field, a body its validation refuses, and the references its writes check.

export type Body = Record<string, unknown>;

export interface Reference {
  /** The body field. */
  field: string;
  /** An id of the same kind from another organisation: never this tenant's. */
  foreign: (other: Tenant) => Promise<string>;
  /** Checked on a change too (false: a create-only field; a change to it is a 409 on the field). */
  onChange: boolean;
}

export interface ExternalIdResource {
  /** The path segment: /v1/<name>, /v1/<name>/by-external-id/{externalId}. */
  name: string;
  /** The event type's prefix: <type>.created. */
  type: string;
  table: string;
  /** The manage scope its writes need. */
  scope: Scope;
  /** projectId is create-only: a PUT naming another project than the record's is 409 on projectId. */
  fixedProject: boolean;
  /** A POST the tenant may send, without externalId: its path and body (the tenant's own references). */
  post(tenant: Tenant): Promise<{ path: string; body: Body }>;
  /** A PUT body the tenant may send: the create's without externalId (a milestone's names its project). */
  put(tenant: Tenant): Promise<Body>;
  /** The list the record is in (a milestone's project's). */
  list(record: Body): string;
  /** A change of ordinary fields, as a PATCH or within a PUT's body, different from what post/put send. */
  change: Body;
  /** An optional field set on create that a later PUT leaves out: it keeps its value. */
  kept: Body;
  /** Fields the body's validation refuses (400 invalid_field), and the field named. */
  invalid: { fields: Body; field: string };
  /** A required field of the create's body (400 missing_field when left out). */
  required: string;
  /** References the statement checks (400 invalid_reference naming the field). */
  references: Reference[];
}

const foreignProject = async (other: Tenant) => (await other.insertProject()).id;
const foreignPerson = async (other: Tenant) => (await other.insertPerson()).id;

export const RESOURCES: ExternalIdResource[] = [
  {
    name: "projects",
    type: "project",
    table: "projects",
    scope: "projects.manage",
    fixedProject: false,
    post: async () => ({ path: "/v1/projects", body: projectBody() }),
    put: async () => projectBody(),
    list: () => "/v1/projects",
    change: { name: `Renamed project ${unique()}`, budget: 31000 },
    kept: { description: "Kept as it was" },
    invalid: { fields: { budget: -1 }, field: "budget" },
    required: "name",
    references: [],
  },
  {
    name: "milestones",
    type: "milestone",
    table: "milestones",
    scope: "projects.manage",
    fixedProject: true,
    post: async (tenant) => ({ path: `/v1/projects/${(await tenant.insertProject()).id}/milestones`, body: milestoneBody() }),
    put: async (tenant) => milestoneBody({ projectId: (await tenant.insertProject()).id }),
    list: (record) => `/v1/projects/${String(record.projectId)}/milestones`,
    change: { name: `Renamed milestone ${unique()}`, dueDate: "2026-09-30" },
    kept: { description: "Kept as it was" },
    invalid: { fields: { dueDate: "2026-02-30" }, field: "dueDate" },
    required: "name",
    references: [{ field: "projectId", foreign: foreignProject, onChange: false }],
  },
  {
    name: "tasks",
    type: "task",
    table: "tasks",
    scope: "tasks.manage",
    fixedProject: true,
    post: async (tenant) => ({ path: "/v1/tasks", body: await taskBody(tenant) }),
    put: (tenant) => taskBody(tenant),
    list: () => "/v1/tasks",
    change: { title: `Renamed task ${unique()}`, priority: "urgent" },
    kept: { description: "Kept as it was" },
    invalid: { fields: { priority: "whenever" }, field: "priority" },
    required: "title",
    references: [
      { field: "projectId", foreign: foreignProject, onChange: false },
      { field: "assigneeId", foreign: foreignPerson, onChange: true },
      { field: "milestoneId", foreign: async (other) => (await other.insertMilestone(await foreignProject(other))).id, onChange: true },
    ],
  },
  {
    name: "personnel",
    type: "personnel",
    table: "personnel",
    scope: "organisation.manage",
    fixedProject: false,
    post: async () => ({ path: "/v1/personnel", body: personBody() }),
    put: async () => personBody(),
    list: () => "/v1/personnel",
    change: { name: `Renamed person ${unique()}`, active: false },
    kept: { role: "Site lead" },
    invalid: { fields: { name: "" }, field: "name" },
    required: "email",
    references: [],
  },
  {
    name: "risks",
    type: "risk",
    table: "risks",
    scope: "risks.manage",
    fixedProject: true,
    post: async (tenant) => ({ path: "/v1/risks", body: await riskBody(tenant) }),
    put: (tenant) => riskBody(tenant),
    list: () => "/v1/risks",
    change: { title: `Renamed risk ${unique()}`, probability: "high" },
    kept: { description: "Kept as it was" },
    invalid: { fields: { impact: "enormous" }, field: "impact" },
    required: "title",
    references: [
      { field: "projectId", foreign: foreignProject, onChange: false },
      { field: "ownerId", foreign: foreignPerson, onChange: true },
    ],
  },
  {
    name: "issues",
    type: "issue",
    table: "issues",
    scope: "issues.manage",
    fixedProject: true,
    post: async (tenant) => ({ path: "/v1/issues", body: await issueBody(tenant) }),
    put: (tenant) => issueBody(tenant),
    list: () => "/v1/issues",
    change: { title: `Renamed issue ${unique()}`, severity: "critical" },
    kept: { description: "Kept as it was" },
    invalid: { fields: { severity: "apocalyptic" }, field: "severity" },
    required: "title",
    references: [
      { field: "projectId", foreign: foreignProject, onChange: false },
      { field: "reporterId", foreign: foreignPerson, onChange: true },
      { field: "assigneeId", foreign: foreignPerson, onChange: true },
    ],
  },
  {
    name: "financial-entries",
    type: "financialEntry",
    table: "financial_entries",
    scope: "financials.manage",
    fixedProject: true,
    post: async (tenant) => ({ path: "/v1/financial-entries", body: await financialEntryBody(tenant) }),
    put: (tenant) => financialEntryBody(tenant),
    list: () => "/v1/financial-entries",
    change: { amount: "2000.00", description: `Crane hire ${unique()}` },
    kept: { reference: "PO-4471" },
    invalid: { fields: { currency: "eur" }, field: "currency" },
    required: "amount",
    references: [{ field: "projectId", foreign: foreignProject, onChange: false }],
  },
];

/** The path of PUT by external id (the externalId URL-encoded). */
export const byExternalId = (resource: ExternalIdResource, externalId: string) =>
  `/v1/${resource.name}/by-external-id/${encodeURIComponent(externalId)}`;

/** A fresh external id, unique across runs. */
export const newExternalId = (label = "ext") => `${label}-${unique()}${unique()}`;

/** `changes` an update event records for `fields` sent to `record` (only those whose value moves). */
export function changesFor(record: Body, fields: Body): Record<string, { from: unknown; to: unknown }> {
  return Object.fromEntries(
    Object.entries(fields)
      .filter(([field, value]) => record[field] !== value)
      .map(([field, value]) => [field, { from: record[field], to: value }]),
  );
}
