import { sql } from "drizzle-orm";
import type { CreatePersonInput, UpdatePersonInput } from "../../functions/schemas/personnel.ts";
import type { Database } from "../client.ts";
import type { Actor } from "./actor.ts";
import type { IdempotencyRequest } from "./idempotency.ts";
import { settleCreate, settleUpdate } from "./outcomes.ts";
import type { PageRequest } from "./paging.ts";
import { createRecord, getRecord, listRecords, updateRecord, type ResourceDef } from "./records.ts";

export const personnelResource: ResourceDef = {
  table: "personnel",
  type: "personnel",
  readScope: "organisation.read",
  manageScope: "organisation.manage",
  columns: [
    { key: "name", column: "name", kind: "text" },
    { key: "email", column: "email", kind: "text" },
    { key: "role", column: "role", kind: "text" },
    { key: "active", column: "active", kind: "boolean" },
  ],
};

export function listPersonnel(db: Database, actor: Actor, page: PageRequest, filters: { active?: boolean | undefined }) {
  return listRecords(db, actor, personnelResource, {
    ...page,
    filters: filters.active === undefined ? [] : [sql`r.active = ${filters.active}`],
  });
}

export function getPerson(db: Database, actor: Actor, id: string) {
  return getRecord(db, actor, personnelResource, id);
}

export async function createPersonnel(db: Database, actor: Actor, input: CreatePersonInput, idempotency?: IdempotencyRequest) {
  return settleCreate(await createRecord(db, actor, personnelResource, { values: input, references: [], idempotency }), "person", idempotency);
}

export async function updatePerson(db: Database, actor: Actor, id: string, patch: UpdatePersonInput, ifMatch: number | null) {
  return settleUpdate(await updateRecord(db, actor, personnelResource, { id, patch, ifMatch, references: [], rules: [] }), "person");
}
