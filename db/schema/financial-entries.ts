import { sql } from "drizzle-orm";
import { check, date, foreignKey, index, numeric, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { FINANCIAL_ENTRY_KINDS } from "../../domain/records.ts";
import { checkOneOf, externalId, externalIdConstraints, id, orgId, timestamps, version } from "./columns.ts";
import { organisations } from "./organisations.ts";
import { projects } from "./projects.ts";

export const financialEntries = pgTable(
  "financial_entries",
  {
    id: id(),
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    projectId: uuid().notNull(),
    kind: text({ enum: FINANCIAL_ENTRY_KINDS }).notNull(),
    // Exact decimal. No (15,2) typmod on purpose: Postgres would round 1.005 to 1.01 silently;
    // the checks below refuse it instead, so what is stored is exactly what was sent.
    amount: numeric().notNull(),
    // ISO 4217 code, three capital letters.
    currency: text().notNull(),
    date: date({ mode: "string" }).notNull(),
    description: text(),
    // The caller's own document number (an invoice number, a purchase order).
    reference: text(),
    externalId: externalId(),
    version: version(),
    ...timestamps,
  },
  (t) => [
    ...externalIdConstraints("financial_entries", t),
    // The project must be in the entry's organisation.
    foreignKey({ columns: [t.orgId, t.projectId], foreignColumns: [projects.orgId, projects.id], name: "financial_entries_project_fk" }),
    // The default list order (keyset pagination on created_at, id).
    index("financial_entries_org_created_idx").on(t.orgId, t.createdAt, t.id),
    // ?projectId= in list order; also the rows a project's financial summary adds up.
    index("financial_entries_org_project_created_idx").on(t.orgId, t.projectId, t.createdAt, t.id),
    // ?kind=invoice across the organisation, in list order.
    index("financial_entries_org_kind_created_idx").on(t.orgId, t.kind, t.createdAt, t.id),
    checkOneOf("financial_entries_kind_valid", t.kind, FINANCIAL_ENTRY_KINDS),
    check("financial_entries_amount_scale", sql`${t.amount} = round(${t.amount}, 2)`),
    check("financial_entries_amount_range", sql`abs(${t.amount}) < 10000000000000`),
    // Costs, invoices and payments are positive (the kind says which way money moves); an
    // adjustment is a signed correction; nothing is zero.
    check("financial_entries_amount_sign", sql`${t.amount} <> 0 and (${t.kind} = 'adjustment' or ${t.amount} > 0)`),
    check("financial_entries_currency_format", sql`${t.currency} ~ '^[A-Z]{3}$'`),
    check("financial_entries_reference_length", sql`char_length(${t.reference}) between 1 and 200`),
  ],
);
