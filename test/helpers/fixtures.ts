import { randomBytes } from "node:crypto";
import { revokeApiKey } from "../../db/statements/api-keys.ts";
import { createOrganisation, type Organisation } from "../../db/statements/organisations.ts";
import { uuidv7 } from "../../domain/ids.ts";
import { ALL_SCOPES, expandScopes, type Scope } from "../../domain/scopes.ts";
import { createApiKey, type CreatedApiKey } from "../../services/api-keys.ts";
import { query, testDatabase } from "./database.ts";

// Fixtures, not seeds: every test makes its own organisation, keys and records, so tests never
// depend on each other or on run order. Organisations and keys go through
// db/statements/organisations.ts and services/api-keys.ts (as the CLI does), a revoked key straight in the database (no room is told). The insert* helpers write rows straight into the database: quick arranging
// for tests about something else, but they bypass the API, so they bump no changeVersion and
// write no event. A test about writes goes through the API.

export interface Tenant {
  org: Organisation;
  /** The API key itself (ops_...). */
  key: string;
  keyId: string;
  application: string;
  /** The scopes the key holds (implied .read included). */
  scopes: Scope[];
  /** Another key of this organisation. */
  keyWith(scopes: readonly Scope[], options?: KeyOptions): Promise<CreatedApiKey>;
  /** A key of this organisation that has been revoked. */
  revokedKey(scopes?: readonly Scope[]): Promise<CreatedApiKey>;
  insertPerson(fields?: Partial<PersonRow>): Promise<PersonRow>;
  insertProject(fields?: Partial<ProjectRow>): Promise<ProjectRow>;
  insertMilestone(projectId: string, fields?: Partial<MilestoneRow>): Promise<MilestoneRow>;
  /** Creates a project and an assignee too unless given. */
  insertTask(fields?: Partial<TaskRow>): Promise<TaskRow>;
}

export interface KeyOptions {
  application?: string;
  rateLimit?: number;
}

const unique = () => randomBytes(4).toString("hex");

export async function createTenant(options: { scopes?: readonly Scope[]; name?: string } & KeyOptions = {}): Promise<Tenant> {
  const org = await createOrganisation(testDatabase(), { name: options.name ?? `Test org ${unique()}` });
  const created = await keyWith(org.id, options.scopes ?? ALL_SCOPES, options);
  return {
    org,
    key: created.key,
    keyId: created.id,
    application: created.application,
    scopes: created.scopes,
    keyWith: (scopes, keyOptions) => keyWith(org.id, scopes, keyOptions),
    revokedKey: (scopes) => revokedKey(org.id, scopes),
    insertPerson: (fields) => insertPerson(org.id, fields),
    insertProject: (fields) => insertProject(org.id, fields),
    insertMilestone: (projectId, fields) => insertMilestone(org.id, projectId, fields),
    insertTask: (fields) => insertTask(org.id, fields),
  };
}

/** A key of `orgId` holding `scopes` (expanded: a .manage scope brings its .read). */
export function keyWith(orgId: string, scopes: readonly Scope[], options: KeyOptions = {}): Promise<CreatedApiKey> {
  return createApiKey({
    ctx: { db: testDatabase() },
    input: {
      orgId,
      application: options.application ?? `test-app-${unique()}`,
      scopes: expandScopes(scopes),
      ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    },
  });
}

export async function revokedKey(orgId: string, scopes: readonly Scope[] = ALL_SCOPES): Promise<CreatedApiKey> {
  const created = await keyWith(orgId, scopes);
  await revokeApiKey(testDatabase(), created.id);
  return created;
}

/** Every scope except `scope` and anything that implies it: the key a 403 test needs. */
export function scopesWithout(scope: Scope): Scope[] {
  const implying = scope.endsWith(".read") ? scope.replace(/\.read$/, ".manage") : scope;
  return ALL_SCOPES.filter((s) => s !== scope && s !== implying);
}

export interface PersonRow {
  id: string;
  orgId: string;
  name: string;
  email: string;
  role: string | null;
  active: boolean;
}

export interface ProjectRow {
  id: string;
  orgId: string;
  name: string;
  description: string | null;
  budget: string;
  startDate: string;
  endDate: string;
  status: string;
}

export interface MilestoneRow {
  id: string;
  orgId: string;
  projectId: string;
  name: string;
  description: string | null;
  dueDate: string;
  status: string;
}

export interface TaskRow {
  id: string;
  orgId: string;
  projectId: string;
  assigneeId: string;
  milestoneId: string | null;
  title: string;
  description: string | null;
  status: string;
  priority: string;
  startDate: string | null;
  dueDate: string;
}

/** Inserts one row from camelCase fields and returns it camelCased (dates as YYYY-MM-DD). */
async function insertRow<Row>(table: string, fields: Record<string, unknown>): Promise<Row> {
  const entries = Object.entries(fields).filter(([, value]) => value !== undefined);
  const columns = entries.map(([name]) => `"${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}"`);
  const [row] = await query<Record<string, unknown>>(
    `insert into "${table}" (${columns.join(", ")}) values (${entries.map((_, i) => `$${i + 1}`).join(", ")}) returning *`,
    entries.map(([, value]) => value),
  );
  return camelCase(row!) as Row;
}

function camelCase(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map(([name, value]) => [
      name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
      value instanceof Date && /_date$/.test(name) ? localDate(value) : value,
    ]),
  );
}

// node-postgres turns a `date` into a local-midnight Date; turn it back into the stored day.
function localDate(value: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${value.getFullYear()}-${pad(value.getMonth() + 1)}-${pad(value.getDate())}`;
}

export function insertPerson(orgId: string, fields: Partial<PersonRow> = {}): Promise<PersonRow> {
  const tag = unique();
  return insertRow("personnel", { id: uuidv7(), name: `Person ${tag}`, email: `person-${tag}@example.test`, ...fields, orgId });
}

export function insertProject(orgId: string, fields: Partial<ProjectRow> = {}): Promise<ProjectRow> {
  return insertRow("projects", {
    id: uuidv7(),
    name: `Project ${unique()}`,
    budget: "0",
    startDate: "2026-01-01",
    endDate: "2026-12-31",
    ...fields,
    orgId,
  });
}

export function insertMilestone(orgId: string, projectId: string, fields: Partial<MilestoneRow> = {}): Promise<MilestoneRow> {
  return insertRow("milestones", { id: uuidv7(), name: `Milestone ${unique()}`, dueDate: "2026-06-30", ...fields, orgId, projectId });
}

export async function insertTask(orgId: string, fields: Partial<TaskRow> = {}): Promise<TaskRow> {
  const projectId = fields.projectId ?? (await insertProject(orgId)).id;
  const assigneeId = fields.assigneeId ?? (await insertPerson(orgId)).id;
  return insertRow("tasks", {
    id: uuidv7(),
    title: `Task ${unique()}`,
    dueDate: "2026-06-30",
    ...fields,
    orgId,
    projectId,
    assigneeId,
  });
}
