import { sql } from "drizzle-orm";
import { check, foreignKey, index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { ISSUE_SEVERITIES, ISSUE_STATUSES } from "../../domain/records.ts";
import { checkOneOf, externalId, externalIdConstraints, id, orgId, timestamps, version } from "./columns.ts";
import { organisations } from "./organisations.ts";
import { personnel } from "./personnel.ts";
import { projects } from "./projects.ts";

export const issues = pgTable(
  "issues",
  {
    id: id(),
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    projectId: uuid().notNull(),
    title: text().notNull(),
    description: text(),
    // Null until triaged: the service does not invent a severity.
    severity: text({ enum: ISSUE_SEVERITIES }),
    status: text({ enum: ISSUE_STATUSES }).notNull().default("open"),
    reporterId: uuid(),
    assigneeId: uuid(),
    // Set by the service when the issue becomes resolved, never by a client.
    resolvedAt: timestamp({ withTimezone: true, precision: 3 }),
    externalId: externalId(),
    version: version(),
    ...timestamps,
  },
  (t) => [
    ...externalIdConstraints("issues", t),
    // References stay inside the organisation, enforced by the database as well as by the API.
    foreignKey({ columns: [t.orgId, t.projectId], foreignColumns: [projects.orgId, projects.id], name: "issues_project_fk" }),
    // MATCH SIMPLE: each checked only when set.
    foreignKey({ columns: [t.orgId, t.reporterId], foreignColumns: [personnel.orgId, personnel.id], name: "issues_reporter_fk" }),
    foreignKey({ columns: [t.orgId, t.assigneeId], foreignColumns: [personnel.orgId, personnel.id], name: "issues_assignee_fk" }),
    // The default list order (keyset pagination on created_at, id).
    index("issues_org_created_idx").on(t.orgId, t.createdAt, t.id),
    // ?projectId= in list order; also counts a project's issues when the project is deleted.
    index("issues_org_project_created_idx").on(t.orgId, t.projectId, t.createdAt, t.id),
    // ?status=open, the queue of unresolved issues, in list order.
    index("issues_org_status_created_idx").on(t.orgId, t.status, t.createdAt, t.id),
    check("issues_title_length", sql`char_length(${t.title}) between 1 and 200`),
    checkOneOf("issues_severity_valid", t.severity, ISSUE_SEVERITIES),
    checkOneOf("issues_status_valid", t.status, ISSUE_STATUSES),
    // A resolved issue has its moment; an open or in-progress one has none (reopening clears it).
    check("issues_resolved_has_resolved_at", sql`${t.status} <> 'resolved' or ${t.resolvedAt} is not null`),
    check("issues_open_has_no_resolved_at", sql`${t.resolvedAt} is null or ${t.status} in ('resolved','closed')`),
  ],
);
