import { z } from "@hono/zod-openapi";
import { milestoneStatuses } from "../../db/schema/milestones.ts";
import { DateString, Description, Name, Uuid, commaList, pageQuery, recordFields } from "./common.ts";

export const MilestoneSchema = z
  .object({
    ...recordFields,
    projectId: Uuid,
    name: z.string().openapi({ example: "Lease signed" }),
    description: z.string().nullable(),
    dueDate: DateString,
    status: z.enum(milestoneStatuses),
  })
  .openapi("Milestone");

export const CreateMilestoneSchema = z
  .strictObject({
    name: Name.openapi({ example: "Lease signed" }),
    dueDate: DateString,
    description: Description.optional(),
    status: z.enum(milestoneStatuses).optional().openapi({ description: "Defaults to open." }),
  })
  .openapi("CreateMilestone");

export const UpdateMilestoneSchema = z
  .strictObject({
    name: Name.optional(),
    dueDate: DateString.optional(),
    description: Description.optional(),
    status: z.enum(milestoneStatuses).optional(),
  })
  .openapi("UpdateMilestone");

export const ListMilestonesQuery = z.strictObject({ ...pageQuery, status: commaList(milestoneStatuses).optional() });

export type CreateMilestoneInput = z.infer<typeof CreateMilestoneSchema>;
export type UpdateMilestoneInput = z.infer<typeof UpdateMilestoneSchema>;
