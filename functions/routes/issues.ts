import { issues } from "../../services/issues.ts";
import { PROJECT_EXPAND } from "../schemas/expansions.ts";
import { CreateIssueSchema, UpsertIssueSchema, IssueSchema, UpdateIssueSchema } from "../schemas/issues.ts";
import { requestsAsIs, resourceRoutes } from "./resource-routes.ts";

export const issueRoutes = resourceRoutes({
  schemas: { record: IssueSchema, create: CreateIssueSchema, update: UpdateIssueSchema, upsert: UpsertIssueSchema, expand: PROJECT_EXPAND },
  summaries: {
    list: "List issues, filtered by project and status, paged",
    create: "Report an issue of a project (projectId and title are required)",
    get: "Fetch one issue",
    update: "Change an issue; resolvedAt follows the status",
    delete: "Remove an issue",
  },
  descriptions: {
    update:
      "Any status move is allowed. Moving to resolved sets resolvedAt (an issue closed after being resolved keeps it); " +
      "moving back to open or in_progress clears it; closing keeps whatever it was. Send If-Match with the ETag to refuse a stale write.",
  },
  errors: { create: ["invalid_reference"], update: ["invalid_reference"] },
  upsertFixed: "projectId",
  service: issues,
  inputs: requestsAsIs,
});
