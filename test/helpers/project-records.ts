import { expect } from "vitest";
import { uuidv7 } from "../../domain/ids.ts";
import { query } from "./database.ts";
import type { Tenant } from "./fixtures.ts";
import { DATE, ISO_TIMESTAMP, UUID, unique } from "./resources.ts";

// Fixtures, bodies and response shapes for the records that belong to a project: risks, issues
// and financial entries. The insert* helpers write straight into the database (no changeVersion,
// no event), for arranging; tests about writes go through the API.

/** A risk body the tenant may send: its own project, inserted as a fixture. */
export async function riskBody(tenant: Tenant, fields: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const projectId = (fields.projectId as string | undefined) ?? (await tenant.insertProject()).id;
  return { title: `Risk ${unique()}`, projectId, ...fields };
}

export async function issueBody(tenant: Tenant, fields: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const projectId = (fields.projectId as string | undefined) ?? (await tenant.insertProject()).id;
  return { title: `Issue ${unique()}`, projectId, ...fields };
}

export async function financialEntryBody(tenant: Tenant, fields: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const projectId = (fields.projectId as string | undefined) ?? (await tenant.insertProject()).id;
  return { projectId, kind: "cost", amount: "1234.50", currency: "EUR", date: "2026-03-31", ...fields };
}

/** Inserts one row of `table` for the tenant (a new project unless given); answers its id. */
async function insertRow(table: string, tenant: Tenant, fields: Record<string, unknown>): Promise<string> {
  const projectId = (fields.project_id as string | undefined) ?? (await tenant.insertProject()).id;
  const entries = Object.entries({ ...fields, id: uuidv7(), org_id: tenant.org.id, project_id: projectId });
  const [row] = await query<{ id: string }>(
    `insert into ${table} (${entries.map(([column]) => column).join(", ")})
     values (${entries.map((_, i) => `$${i + 1}`).join(", ")}) returning id`,
    entries.map(([, value]) => value),
  );
  return row!.id;
}

/** Columns are snake_case here, as in the table. */
export const insertRisk = (tenant: Tenant, columns: Record<string, unknown> = {}) =>
  insertRow("risks", tenant, { title: `Risk ${unique()}`, ...columns });

export const insertIssue = (tenant: Tenant, columns: Record<string, unknown> = {}) =>
  insertRow("issues", tenant, { title: `Issue ${unique()}`, ...columns });

export const insertFinancialEntry = (tenant: Tenant, columns: Record<string, unknown> = {}) =>
  insertRow("financial_entries", tenant, { kind: "cost", amount: "100.00", currency: "EUR", date: "2026-03-31", ...columns });

// Hand-written response shapes: the public contract, spelled out, not derived.
type Check = (value: unknown) => boolean;
const uuid: Check = (v) => typeof v === "string" && UUID.test(v);
const text: Check = (v) => typeof v === "string";
const date: Check = (v) => typeof v === "string" && DATE.test(v);
const timestamp: Check = (v) => typeof v === "string" && ISO_TIMESTAMP.test(v);
const int: Check = (v) => Number.isInteger(v);
const money: Check = (v) => typeof v === "string" && /^-?\d+\.\d{2}$/.test(v);
const oneOf =
  (...values: string[]): Check =>
  (v) =>
    values.includes(v as string);
const nullable =
  (check: Check): Check =>
  (v) =>
    v === null || check(v);

const RECORD = { id: uuid, orgId: uuid, externalId: nullable(text), version: int, createdAt: timestamp, updatedAt: timestamp };
const level = nullable(oneOf("low", "medium", "high"));

export const SHAPES = {
  risk: {
    ...RECORD,
    projectId: uuid,
    title: text,
    description: nullable(text),
    probability: level,
    impact: level,
    status: oneOf("open", "mitigated", "closed"),
    ownerId: nullable(uuid),
    mitigation: nullable(text),
  },
  issue: {
    ...RECORD,
    projectId: uuid,
    title: text,
    description: nullable(text),
    severity: nullable(oneOf("low", "medium", "high", "critical")),
    status: oneOf("open", "in_progress", "resolved", "closed"),
    reporterId: nullable(uuid),
    assigneeId: nullable(uuid),
    resolvedAt: nullable(timestamp),
  },
  financialEntry: {
    ...RECORD,
    projectId: uuid,
    kind: oneOf("cost", "invoice", "payment", "adjustment"),
    amount: money,
    currency: (v: unknown) => typeof v === "string" && /^[A-Z]{3}$/.test(v),
    date,
    description: nullable(text),
    reference: nullable(text),
  },
  projectFinancials: {
    projectId: uuid,
    currency: nullable(text),
    budget: money,
    costs: money,
    adjustments: money,
    invoiced: money,
    paid: money,
    remaining: money,
  },
} satisfies Record<string, Record<string, Check>>;

/** Asserts the record has exactly the shape's fields, each of its kind. */
export function expectRecordShape(record: unknown, shape: keyof typeof SHAPES): void {
  const fields: Record<string, Check> = SHAPES[shape];
  expect(record, `${shape} is an object`).toBeTypeOf("object");
  const value = record as Record<string, unknown>;
  expect(Object.keys(value).sort(), `${shape} fields`).toEqual(Object.keys(fields).sort());
  for (const [field, check] of Object.entries(fields)) {
    expect(check(value[field]), `${shape}.${field} = ${JSON.stringify(value[field])}`).toBe(true);
  }
}
