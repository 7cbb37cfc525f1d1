import { sql } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import type { PageRequest } from "../../domain/paging.ts";
import type { Database } from "../client.ts";
import { personnel } from "../schema/index.ts";
import { createRecord } from "./create.ts";
import type { IdempotencyRequest } from "./idempotency.ts";
import { getRecord, listRecords } from "./read.ts";
import { defineResource, type FieldsOf, type RecordOf } from "./resource.ts";
import { updateRecord } from "./update.ts";

// People are deactivated (active: false), never deleted: tasks, risks and issues name them.

export const personnelResource = defineResource(personnel, { type: "personnel", readScope: "organisation.read", manageScope: "organisation.manage" });
export type PersonRecord = RecordOf<typeof personnelResource>;
export type PersonValues = FieldsOf<typeof personnelResource>;
export type NewPerson = PersonValues & Pick<PersonRecord, "name" | "email">;

const { row: r } = personnelResource;

export function listPersonnel(db: Database, actor: Actor, page: PageRequest, filters: { active?: boolean | undefined }) {
  return listRecords(db, actor, personnelResource, { page, filters: filters.active === undefined ? [] : [sql`${r.active} = ${filters.active}`] });
}

export function getPerson(db: Database, actor: Actor, id: string) {
  return getRecord(db, actor, personnelResource, id);
}

export function createPerson(db: Database, actor: Actor, values: NewPerson, idempotency?: IdempotencyRequest) {
  return createRecord(db, actor, personnelResource, { values, references: [], idempotency });
}

export function updatePerson(db: Database, actor: Actor, id: string, patch: PersonValues, ifMatch: number | null) {
  return updateRecord(db, actor, personnelResource, { id, patch, ifMatch, references: [], rules: [] });
}
