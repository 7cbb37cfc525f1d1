import { checklistItems } from "../../services/checklist-items.ts";
import {
  ChecklistItemSchema,
  CreateChecklistItemSchema,
  UpdateChecklistItemSchema,
  UpsertChecklistItemSchema,
} from "../schemas/checklist-items.ts";
import { requestsAsIs, resourceRoutes } from "./resource-routes.ts";

// A task's checklist: listed and added under the task, reached by their own id otherwise.

export const checklistItemRoutes = resourceRoutes({
  schemas: {
    record: ChecklistItemSchema,
    create: CreateChecklistItemSchema,
    update: UpdateChecklistItemSchema,
    upsert: UpsertChecklistItemSchema,
  },
  summaries: {
    list: "List a task's checklist, in the order its items were added",
    create: "Add an item to a task's checklist (title is required)",
    get: "Fetch one checklist item",
    update: "Change a checklist item: tick it off (done), or retitle it",
    delete: "Remove a checklist item",
  },
  listDescription: "A page of the task's checklist items, in the order they were added.",
  errors: { create: ["invalid_reference"] },
  upsertFixed: "taskId",
  service: checklistItems,
  inputs: { ...requestsAsIs, create: (body, taskId) => ({ ...body, taskId: taskId! }) },
});
