import { z } from "@hono/zod-openapi";
import { MILESTONE_STATUSES } from "../../domain/records.ts";
import type { MilestoneRecord } from "../../services/milestones.ts";
import { DateString, Description, Name, ProgressSchema, Uuid, publicRecord, externalIdFields, recordFields } from "./common.ts";

export const MilestoneSchema = publicRecord<MilestoneRecord>()(
  z
    .object({
      ...recordFields,
      ...externalIdFields.record,
      projectId: Uuid,
      name: z.string().openapi({ example: "Lease signed" }),
      description: z.string().nullable(),
      dueDate: DateString,
      status: z.enum(MILESTONE_STATUSES),
      progress: ProgressSchema,
    })
    .openapi("Milestone"),
);

// The inputs take the record's own fields where they are the same (its ids, date and status); a
// change is a create's fields, each optional.
const { projectId, dueDate, status } = MilestoneSchema.shape;

const milestoneFields = {
  name: Name.openapi({ example: "Lease signed" }),
  dueDate,
  description: Description.optional(),
  status: status.optional(),
};

export const CreateMilestoneSchema = z
  .strictObject({ ...externalIdFields.create, ...milestoneFields, status: status.optional().openapi({ description: "Defaults to open." }) })
  .openapi("CreateMilestone");

/** PUT /v1/milestones/by-external-id/{externalId}: a create's body, naming the project (a new milestone is created under it). */
export const UpsertMilestoneSchema = CreateMilestoneSchema.omit({ externalId: true }).extend({ projectId }).openapi("UpsertMilestone");

export const UpdateMilestoneSchema = z
  .strictObject({ ...externalIdFields.update, ...milestoneFields })
  .partial()
  .openapi("UpdateMilestone");

export type CreateMilestoneInput = z.infer<typeof CreateMilestoneSchema>;
export type UpdateMilestoneInput = z.infer<typeof UpdateMilestoneSchema>;
