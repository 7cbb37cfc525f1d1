import { z } from "@hono/zod-openapi";
import type { ChecklistItemRecord } from "../../services/checklist-items.ts";
import { Name, Uuid, externalIdFields, publicRecord, recordFields } from "./common.ts";

export const ChecklistItemSchema = publicRecord<ChecklistItemRecord>()(
  z
    .object({
      ...recordFields,
      ...externalIdFields.record,
      taskId: Uuid,
      projectId: Uuid.openapi({ description: "The task's project." }),
      title: z.string().openapi({ example: "Photograph the meter readings" }),
      done: z.boolean(),
    })
    .openapi("ChecklistItem"),
);

// The inputs take the record's own fields where they are the same (done); the title is validated
// (Name: 1 to 200 characters). A change is a create's fields, each optional; the task is the item's for good.
const itemFields = {
  title: Name.openapi({ example: "Photograph the meter readings" }),
  done: ChecklistItemSchema.shape.done.optional(),
};

export const CreateChecklistItemSchema = z
  .strictObject({ ...externalIdFields.create, ...itemFields, done: itemFields.done.openapi({ description: "Defaults to false." }) })
  .openapi("CreateChecklistItem");

/** PUT /v1/checklist-items/by-external-id/{externalId}: the body names the task (a new item is added to it; an existing one must be on it). */
export const UpsertChecklistItemSchema = z
  .strictObject({ taskId: ChecklistItemSchema.shape.taskId, ...itemFields })
  .openapi("UpsertChecklistItem");

export const UpdateChecklistItemSchema = z
  .strictObject({ ...externalIdFields.update, ...itemFields })
  .partial()
  .openapi("UpdateChecklistItem");
