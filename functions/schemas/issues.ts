import { z } from "@hono/zod-openapi";
import { ISSUE_SEVERITIES, ISSUE_STATUSES } from "../../domain/records.ts";
import type { IssueRecord } from "../../services/issues.ts";
import { Description, Name, Timestamp, Uuid, publicRecord, externalIdFields, recordFields } from "./common.ts";

const Severity = z.enum(ISSUE_SEVERITIES).nullable();

export const IssueSchema = publicRecord<IssueRecord>()(
  z
    .object({
      ...recordFields,
      ...externalIdFields.record,
      projectId: Uuid,
      title: z.string().openapi({ example: "Loading dock door jams" }),
      description: z.string().nullable(),
      severity: Severity.openapi({ description: "Null until triaged." }),
      status: z.enum(ISSUE_STATUSES),
      reporterId: Uuid.nullable(),
      assigneeId: Uuid.nullable(),
      resolvedAt: Timestamp.nullable().openapi({
        description: "Set when the issue becomes resolved; kept when it is closed; cleared when it is reopened.",
      }),
    })
    .openapi("Issue"),
);

// The inputs take the record's own fields where they are the same (its ids, severity and
// status); a change is a create's fields but projectId (an issue stays with its project; resolvedAt
// belongs to the service), each optional.
const { projectId, severity, status, reporterId, assigneeId } = IssueSchema.shape;

const issueFields = {
  projectId,
  title: Name.openapi({ example: "Loading dock door jams" }),
  description: Description.optional(),
  severity: severity.optional(),
  status: status.optional(),
  reporterId: reporterId.optional().openapi({ description: "A person of the organisation." }),
  assigneeId: assigneeId.optional().openapi({ description: "An active person of the organisation." }),
};

export const CreateIssueSchema = z
  .strictObject({ ...externalIdFields.create, ...issueFields, status: status.optional().openapi({ description: "Defaults to open." }) })
  .openapi("CreateIssue");

/** PUT by external id: a create's body; the path gives the externalId. */
export const UpsertIssueSchema = CreateIssueSchema.omit({ externalId: true }).openapi("UpsertIssue");

export const UpdateIssueSchema = z
  .strictObject({ ...externalIdFields.update, ...issueFields })
  .omit({ projectId: true })
  .partial()
  .openapi("UpdateIssue");

export type CreateIssueInput = z.infer<typeof CreateIssueSchema>;
export type UpdateIssueInput = z.infer<typeof UpdateIssueSchema>;
