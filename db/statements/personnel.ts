import type { SQL } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import { RESOURCES } from "../../domain/resources.ts";
import type { Database } from "../client.ts";
import { personnel } from "../schema/index.ts";
import { createRecord } from "./engine/create.ts";
import type { IdempotencyRequest } from "./engine/idempotency.ts";
import { defineResource, type FieldsOf, type RecordOf } from "./engine/resource.ts";
import { sql } from "./engine/sql-tag.ts";
import { updateRecord } from "./engine/update.ts";
import { upsertRecord } from "./engine/upsert.ts";
import { notTaken, type Reference } from "./engine/write-ctes.ts";

// People are deactivated (active: false), never deleted: tasks, risks and issues name them.

export const personnelResource = defineResource(RESOURCES.personnel, personnel);
export type PersonRecord = RecordOf<typeof personnelResource>;
export type PersonValues = FieldsOf<typeof personnelResource>;
export type NewPerson = PersonValues & Pick<PersonRecord, "name" | "email">;

/**
 * `email` holds when no other person of the organisation has the address, whatever its case. The
 * unique index is the last word; this check names the field, and refuses a batch's operation
 * before the index would (so the batch can say which operation it was).
 */
function emailFree(email: unknown, except?: SQL): Reference[] {
  return typeof email === "string" ? [notTaken(personnel, "email", sql`lower(x.email) = lower(${email})`, except)] : [];
}

export function createPerson(db: Database, actor: Actor, values: NewPerson, idempotency?: IdempotencyRequest) {
  return createRecord(db, actor, personnelResource, { values, references: emailFree(values.email), idempotency });
}

export function updatePerson(db: Database, actor: Actor, id: string, patch: PersonValues, ifMatch: number | null) {
  return updateRecord(db, actor, personnelResource, {
    id,
    patch,
    ifMatch,
    references: emailFree(patch.email, sql`(select id from locked)`),
    rules: [],
  });
}

export function upsertPerson(db: Database, actor: Actor, externalId: string, values: NewPerson, ifMatch: number | null) {
  return upsertRecord(db, actor, personnelResource, {
    externalId,
    values,
    ifMatch,
    create: { references: emailFree(values.email) },
    update: { references: emailFree(values.email, sql`l.id`), rules: [] },
  });
}
