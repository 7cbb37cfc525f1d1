import { sql } from "drizzle-orm";
import { check, foreignKey, index, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { RISK_LEVELS, RISK_STATUSES } from "../../domain/records.ts";
import { checkOneOf, externalId, externalIdConstraints, id, orgId, timestamps, version } from "./columns.ts";
import { organisations } from "./organisations.ts";
import { personnel } from "./personnel.ts";
import { projects } from "./projects.ts";

export const risks = pgTable(
  "risks",
  {
    id: id(),
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    projectId: uuid().notNull(),
    title: text().notNull(),
    description: text(),
    // Null until assessed: the service does not invent an assessment.
    probability: text({ enum: RISK_LEVELS }),
    impact: text({ enum: RISK_LEVELS }),
    status: text({ enum: RISK_STATUSES }).notNull().default("open"),
    ownerId: uuid(),
    mitigation: text(),
    externalId: externalId(),
    version: version(),
    ...timestamps,
  },
  (t) => [
    ...externalIdConstraints("risks", t),
    // References stay inside the organisation, enforced by the database as well as by the API.
    foreignKey({ columns: [t.orgId, t.projectId], foreignColumns: [projects.orgId, projects.id], name: "risks_project_fk" }),
    // MATCH SIMPLE: checked only when owner_id is set.
    foreignKey({ columns: [t.orgId, t.ownerId], foreignColumns: [personnel.orgId, personnel.id], name: "risks_owner_fk" }),
    // The default list order (keyset pagination on created_at, id).
    index("risks_org_created_idx").on(t.orgId, t.createdAt, t.id),
    // ?projectId= in list order; also counts a project's risks when the project is deleted.
    index("risks_org_project_created_idx").on(t.orgId, t.projectId, t.createdAt, t.id),
    // ?status=open, the risk register's everyday view, in list order.
    index("risks_org_status_created_idx").on(t.orgId, t.status, t.createdAt, t.id),
    check("risks_title_length", sql`char_length(${t.title}) between 1 and 200`),
    checkOneOf("risks_probability_valid", t.probability, RISK_LEVELS),
    checkOneOf("risks_impact_valid", t.impact, RISK_LEVELS),
    checkOneOf("risks_status_valid", t.status, RISK_STATUSES),
  ],
);
