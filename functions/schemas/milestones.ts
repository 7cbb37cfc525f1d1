import { z } from "@hono/zod-openapi";
import { MILESTONE_STATUSES } from "../../domain/records.ts";
import { DateString, Description, Name, Uuid, commaList, pageQuery, publicRecord, recordFields } from "./common.ts";
import type { MilestoneRecord } from "../../services/milestones.ts";

export const MilestoneSchema = publicRecord<MilestoneRecord>()(
  z
    .object({
      ...recordFields,
      projectId: Uuid,
      name: z.string().openapi({ example: "Lease signed" }),
      description: z.string().nullable(),
      dueDate: DateString,
      status: z.enum(MILESTONE_STATUSES),
    })
    .openapi("Milestone")
);

export const CreateMilestoneSchema = z
  .strictObject({
    name: Name.openapi({ example: "Lease signed" }),
    dueDate: DateString,
    description: Description.optional(),
    status: z.enum(MILESTONE_STATUSES).optional().openapi({ description: "Defaults to open." }),
  })
  .openapi("CreateMilestone");

export const UpdateMilestoneSchema = z
  .strictObject({
    name: Name.optional(),
    dueDate: DateString.optional(),
    description: Description.optional(),
    status: z.enum(MILESTONE_STATUSES).optional(),
  })
  .openapi("UpdateMilestone");

export const ListMilestonesQuery = z.strictObject({ ...pageQuery, status: commaList(MILESTONE_STATUSES).optional() });

export type CreateMilestoneInput = z.infer<typeof CreateMilestoneSchema>;
export type UpdateMilestoneInput = z.infer<typeof UpdateMilestoneSchema>;
