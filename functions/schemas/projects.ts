import { z } from "@hono/zod-openapi";
import { PROJECT_STATUSES } from "../../domain/records.ts";
import { DateString, Description, Name, commaList, pageQuery, publicRecord, recordFields } from "./common.ts";
import type { ProjectRecord } from "../../services/projects.ts";

const Budget = z
  .number()
  .min(0)
  .max(9_999_999_999_999)
  .refine((n) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-6, "budget has at most 2 decimal places")
  .openapi({ description: "0 means the project has no budget.", example: 25000 });

export const ProjectSchema = publicRecord<ProjectRecord>()(
  z
    .object({
      ...recordFields,
      name: z.string().openapi({ example: "Warehouse move" }),
      description: z.string().nullable(),
      budget: z.number().openapi({ example: 25000 }),
      startDate: DateString,
      endDate: DateString,
      status: z.enum(PROJECT_STATUSES),
    })
    .openapi("Project")
);

const datesOrdered = (p: { startDate?: string | undefined; endDate?: string | undefined }) =>
  !p.startDate || !p.endDate || p.endDate >= p.startDate;

export const CreateProjectSchema = z
  .strictObject({
    name: Name.openapi({ example: "Warehouse move" }),
    budget: Budget,
    startDate: DateString,
    endDate: DateString.openapi({ example: "2027-03-31" }),
    description: Description.optional(),
    status: z.enum(PROJECT_STATUSES).optional().openapi({ description: "Defaults to planned." }),
  })
  .refine(datesOrdered, { message: "endDate must not be before startDate", path: ["endDate"] })
  .openapi("CreateProject");

export const UpdateProjectSchema = z
  .strictObject({
    name: Name.optional(),
    budget: Budget.optional(),
    startDate: DateString.optional(),
    endDate: DateString.optional(),
    description: Description.optional(),
    status: z.enum(PROJECT_STATUSES).optional(),
  })
  .refine(datesOrdered, { message: "endDate must not be before startDate", path: ["endDate"] })
  .openapi("UpdateProject");

export const ListProjectsQuery = z.strictObject({ ...pageQuery, status: commaList(PROJECT_STATUSES).optional() });

export type CreateProjectInput = z.infer<typeof CreateProjectSchema>;
export type UpdateProjectInput = z.infer<typeof UpdateProjectSchema>;
