import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { api, expectError, expectSuccess, type ApiOptions, type ApiResponse } from "./api.ts";
import { expectNoTrace, query, snapshot, type Snapshot } from "./database.ts";
import type { Tenant } from "./fixtures.ts";

// Helpers for the /v1 API tests (test/api): valid bodies, writes through the API, the events a
// write left, "refused and left no trace", and hand-written response shapes (public
// shapes are a contract, so they are spelled out here, not derived from the API's own schemas).

export const unique = () => randomBytes(4).toString("hex");

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
export const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function projectBody(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: `Project ${unique()}`, budget: 25000, startDate: "2026-01-01", endDate: "2026-12-31", ...fields };
}

export function milestoneBody(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: `Milestone ${unique()}`, dueDate: "2026-06-30", ...fields };
}

export function personBody(fields: Record<string, unknown> = {}): Record<string, unknown> {
  const tag = unique();
  return { name: `Person ${tag}`, email: `person-${tag}@example.test`, ...fields };
}

/** A task body the tenant may send: its own project and an active person, inserted as fixtures. */
export async function taskBody(tenant: Tenant, fields: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const projectId = (fields.projectId as string | undefined) ?? (await tenant.insertProject()).id;
  const assigneeId = (fields.assigneeId as string | undefined) ?? (await tenant.insertPerson()).id;
  return { title: `Task ${unique()}`, projectId, assigneeId, dueDate: "2026-06-30", ...fields };
}

/** POST through the API, asserting 201; answers the created record. */
export async function created<Record = any>(key: string, path: string, body: unknown): Promise<Record> {
  return expectSuccess<Record>(await api(path, { key, body }), 201).data;
}

/** PATCH through the API, asserting 200; answers the response. */
export async function patched(key: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
  const response = await api(path, { key, method: "PATCH", body, headers });
  expectSuccess(response);
  return response;
}

export interface StoredEvent {
  id: string;
  type: string;
  scope: string;
  changeVersion: number;
  data: Record<string, any>;
  changes: Record<string, { from: unknown; to: unknown }> | null;
}

/** The organisation's outbox rows after `after`, in changeVersion order, read straight from the database. */
export async function storedEvents(orgId: string, after = 0): Promise<StoredEvent[]> {
  const rows = await query<StoredEvent & { changeVersion: string }>(
    `select id, type, scope, change_version as "changeVersion", data, changes
       from events where org_id = $1 and change_version > $2 order by change_version`,
    [orgId, after],
  );
  return rows.map((row) => ({ ...row, changeVersion: Number(row.changeVersion) }));
}

/**
 * Asserts that exactly one write happened since `before`: changeVersion +1 and one event of
 * `type` carrying that changeVersion. Answers the event.
 */
export async function expectOneWrite(orgId: string, before: Snapshot, type: string): Promise<StoredEvent> {
  const after = await snapshot(orgId);
  expect(after.changeVersion, "changeVersion moves by exactly 1").toBe(before.changeVersion + 1);
  expect(after.events, "exactly one event").toBe(before.events + 1);
  const events = await storedEvents(orgId, before.changeVersion);
  expect(events.map((e) => [e.type, e.changeVersion])).toEqual([[type, before.changeVersion + 1]]);
  return events[0]!;
}

/**
 * Makes a call that must be refused: asserts the error (code, field/scope...) and that none of
 * the given organisations changed (rows, changeVersion, events). Answers the error body.
 */
export async function expectRefused(
  orgIds: string | string[],
  call: () => Promise<ApiResponse>,
  status: number,
  code: string | readonly string[],
  details: Record<string, unknown> = {},
) {
  const ids = typeof orgIds === "string" ? [orgIds] : orgIds;
  const before = await Promise.all(ids.map((id) => snapshot(id)));
  const body = expectError(await call(), status, code, details);
  const after = await Promise.all(ids.map((id) => snapshot(id)));
  ids.forEach((_, i) => expectNoTrace(before[i]!, after[i]!));
  return body;
}

/** Shorthand for a refused API call by a tenant: `refused(tenant, path, options, status, code, details)`. */
export function refusedCall(
  tenant: Tenant,
  path: string,
  options: ApiOptions,
  status: number,
  code: string | readonly string[],
  details: Record<string, unknown> = {},
) {
  return expectRefused(tenant.org.id, () => api(path, { key: tenant.key, ...options }), status, code, details);
}

// Hand-written response shapes. Each kind names what a field's value must look like.
type Kind =
  | "uuid"
  | "uuid?"
  | "uuid[]"
  | "string"
  | "string?"
  | "date"
  | "date?"
  | "timestamp"
  | "int"
  | "number"
  | "boolean"
  | "progress"
  | readonly string[];

const RECORD: Record<string, Kind> = {
  id: "uuid",
  orgId: "uuid",
  externalId: "string?",
  version: "int",
  createdAt: "timestamp",
  updatedAt: "timestamp",
};

export const SHAPES = {
  project: {
    ...RECORD,
    name: "string",
    description: "string?",
    budget: "number",
    startDate: "date",
    endDate: "date",
    status: ["planned", "active", "on_hold", "completed", "cancelled"],
    progress: "progress",
  },
  milestone: {
    ...RECORD,
    projectId: "uuid",
    name: "string",
    description: "string?",
    dueDate: "date",
    status: ["open", "done", "cancelled"],
    progress: "progress",
  },
  task: {
    ...RECORD,
    projectId: "uuid",
    assigneeId: "uuid",
    milestoneId: "uuid?",
    title: "string",
    description: "string?",
    status: ["todo", "in_progress", "blocked", "done", "cancelled"],
    priority: ["low", "medium", "high", "urgent"],
    startDate: "date?",
    dueDate: "date",
    parentId: "uuid?",
    blockedBy: "uuid[]",
    labelIds: "uuid[]",
    blocking: "uuid[]",
    subtaskCount: "int",
    subtasksDone: "int",
  },
  personnel: { ...RECORD, name: "string", email: "string", role: "string?", active: "boolean", userId: "uuid?" },
  organisation: { id: "uuid", name: "string", changeVersion: "int", createdAt: "timestamp", updatedAt: "timestamp" },
} satisfies Record<string, Record<string, Kind>>;

function matches(value: unknown, kind: Kind): boolean {
  if (Array.isArray(kind)) return kind.includes(value as string);
  if (typeof kind === "string" && kind.endsWith("?") && value === null) return true;
  switch (kind) {
    case "uuid":
    case "uuid?":
      return typeof value === "string" && UUID.test(value);
    case "string":
    case "string?":
      return typeof value === "string";
    case "date":
    case "date?":
      return typeof value === "string" && DATE.test(value);
    case "timestamp":
      return typeof value === "string" && ISO_TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value));
    case "int":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "uuid[]":
      return Array.isArray(value) && value.every((id) => typeof id === "string" && UUID.test(id));
    case "progress": {
      const p = value as Record<string, number> | null;
      return (
        p !== null &&
        typeof p === "object" &&
        Object.keys(p).sort().join() === "cancelled,done,open,percentDone,total" &&
        Object.values(p).every(Number.isInteger) &&
        p.open === p.total! - p.done! - p.cancelled! &&
        p.percentDone! >= 0 &&
        p.percentDone! <= 100
      );
    }
  }
  return false;
}

/** Asserts the record has exactly the shape's fields, each of its kind. */
export function expectShape(record: unknown, shape: keyof typeof SHAPES): void {
  const fields: Record<string, Kind> = SHAPES[shape];
  expect(record, `${shape} is an object`).toBeTypeOf("object");
  const value = record as Record<string, unknown>;
  expect(Object.keys(value).sort(), `${shape} fields`).toEqual(Object.keys(fields).sort());
  for (const [field, kind] of Object.entries(fields)) {
    expect(matches(value[field], kind), `${shape}.${field} = ${JSON.stringify(value[field])} is not ${String(kind)}`).toBe(true);
  }
}
