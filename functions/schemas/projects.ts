import { z } from "@hono/zod-openapi";
import { PROJECT_STATUSES } from "../../domain/records.ts";
import type { ProjectRecord } from "../../services/projects.ts";
import { DateString, Description, Name, ProgressSchema, publicRecord, externalIdFields, recordFields } from "./common.ts";

const Budget = z
  .number()
  .min(0)
  .max(9_999_999_999_999)
  .refine((n) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-6, "budget has at most 2 decimal places")
  .openapi({ description: "0 means the project has no budget; at most 2 decimal places.", multipleOf: 0.01, example: 25000 });

export const ProjectSchema = publicRecord<ProjectRecord>()(
  z
    .object({
      ...recordFields,
      ...externalIdFields.record,
      name: z.string().openapi({ example: "Warehouse move" }),
      description: z.string().nullable(),
      budget: z.number().openapi({ example: 25000 }),
      startDate: DateString,
      endDate: DateString,
      status: z.enum(PROJECT_STATUSES),
      progress: ProgressSchema,
    })
    .openapi("Project"),
);

const datesOrdered = (p: { startDate?: string | undefined; endDate?: string | undefined }) =>
  !p.startDate || !p.endDate || p.endDate >= p.startDate;

// The inputs take the record's own fields where they are the same (its dates and status); a
// change is a create's fields, each optional.
const { startDate, endDate, status } = ProjectSchema.shape;

const projectFields = {
  name: Name.openapi({ example: "Warehouse move" }),
  budget: Budget,
  startDate,
  endDate: endDate.openapi({ example: "2027-03-31" }),
  description: Description.optional(),
  status: status.optional(),
};
const newProject = { ...projectFields, status: status.optional().openapi({ description: "Defaults to planned." }) };
const DATES_RULE = { message: "endDate must not be before startDate", path: ["endDate"] };

export const CreateProjectSchema = z
  .strictObject({ ...externalIdFields.create, ...newProject })
  .refine(datesOrdered, DATES_RULE)
  .openapi("CreateProject");

/** PUT by external id: a create's body; the path gives the externalId. */
export const UpsertProjectSchema = z.strictObject(newProject).refine(datesOrdered, DATES_RULE).openapi("UpsertProject");

export const UpdateProjectSchema = z
  .strictObject({ ...externalIdFields.update, ...projectFields })
  .partial()
  .refine(datesOrdered, DATES_RULE)
  .openapi("UpdateProject");

export type CreateProjectInput = z.infer<typeof CreateProjectSchema>;
export type UpdateProjectInput = z.infer<typeof UpdateProjectSchema>;
