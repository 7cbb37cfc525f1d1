import type { Actor } from "../../domain/actor.ts";
import { RESOURCES } from "../../domain/resources.ts";
import type { Database } from "../client.ts";
import { labels } from "../schema/index.ts";
import { createRecord } from "./engine/create.ts";
import { deleteRecord } from "./engine/delete.ts";
import type { IdempotencyRequest } from "./engine/idempotency.ts";
import { defineResource, type FieldsOf, type RecordOf } from "./engine/resource.ts";
import { sql } from "./engine/sql-tag.ts";
import { updateRecord } from "./engine/update.ts";
import { upsertRecord } from "./engine/upsert.ts";
import { notTaken, type Reference } from "./engine/write-ctes.ts";
import { takenOffTasks } from "./tasks.ts";

// Labels of the organisation, set on tasks (a task's labelIds). Task scopes cover them.

export const labelResource = defineResource(RESOURCES.label, labels);
export type LabelRecord = RecordOf<typeof labelResource>;
export type LabelValues = FieldsOf<typeof labelResource>;
export type NewLabel = LabelValues & Pick<LabelRecord, "name" | "colour">;

/** `name` holds when no other label of the organisation has the name, in any letter case. */
const nameFree = (name: string | undefined, except?: ReturnType<typeof sql>): Reference[] =>
  name === undefined ? [] : [notTaken(labels, "name", sql`lower(x.name) = lower(${name})`, except)];

export function createLabel(db: Database, actor: Actor, values: NewLabel, idempotency?: IdempotencyRequest) {
  return createRecord(db, actor, labelResource, { values, references: nameFree(values.name), idempotency });
}

export function updateLabel(db: Database, actor: Actor, id: string, patch: LabelValues, ifMatch: number | null) {
  return updateRecord(db, actor, labelResource, {
    id,
    patch,
    ifMatch,
    references: nameFree(patch.name, sql`(select id from locked)`),
    rules: [],
  });
}

export function upsertLabel(db: Database, actor: Actor, externalId: string, values: NewLabel, ifMatch: number | null) {
  return upsertRecord(db, actor, labelResource, {
    externalId,
    values,
    ifMatch,
    create: { references: nameFree(values.name) },
    update: { references: nameFree(values.name, sql`l.id`), rules: [] },
  });
}

/**
 * A deleted label comes off every task that has it, in the same statement, each task with its
 * task.updated event (changes.labelIds), before the label.deleted event.
 */
export function deleteLabel(db: Database, actor: Actor, id: string, ifMatch: number | null) {
  return deleteRecord(db, actor, labelResource, {
    id,
    ifMatch,
    blockers: [],
    cascades: [takenOffTasks("unlabelled", "labelIds")],
    fresh: true,
  });
}
