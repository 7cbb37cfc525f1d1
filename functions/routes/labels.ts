import { labels } from "../../services/labels.ts";
import { CreateLabelSchema, LabelSchema, UpdateLabelSchema, UpsertLabelSchema } from "../schemas/labels.ts";
import { requestsAsIs, resourceRoutes } from "./resource-routes.ts";

// Labels of the organisation, set on tasks (labelIds). Task scopes cover them.

export const labelRoutes = resourceRoutes({
  schemas: { record: LabelSchema, create: CreateLabelSchema, update: UpdateLabelSchema, upsert: UpsertLabelSchema },
  summaries: {
    list: "List the organisation's labels",
    create: "Create a label (name, unique in the organisation, and colour #rrggbb)",
    get: "Fetch one label",
    update: "Change a label",
    delete: "Remove a label; it comes off every task that has it",
  },
  descriptions: {
    delete:
      "The label comes off every task that has it in the same statement: each such task gets a task.updated event (changes.labelIds) before the label.deleted event.",
  },
  service: labels,
  inputs: requestsAsIs,
});
