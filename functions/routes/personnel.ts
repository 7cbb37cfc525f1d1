import { personnel } from "../../services/personnel.ts";
import { CreatePersonSchema, UpsertPersonSchema, PersonSchema, UpdatePersonSchema } from "../schemas/personnel.ts";
import { requestsAsIs, resourceRoutes } from "./resource-routes.ts";

// People are deactivated (active=false), never deleted: tasks, risks and issues keep pointing at them.
export const personnelRoutes = resourceRoutes({
  schemas: { record: PersonSchema, create: CreatePersonSchema, update: UpdatePersonSchema, upsert: UpsertPersonSchema },
  summaries: {
    list: "List the people who may be assigned to tasks",
    create: "Add a person (name and email are required; email is unique in the organisation)",
    get: "Fetch one person",
    update: "Change a person; active=false stops new assignments",
  },
  errors: { create: ["conflict"] },
  service: personnel,
  inputs: requestsAsIs,
});
