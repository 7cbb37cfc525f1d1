import { sql, type SQL } from "drizzle-orm";
import { ApiError } from "../../functions/errors.ts";
import type { ProjectFinancials } from "../../functions/schemas/financial-entries.ts";
import type { Database } from "../client.ts";
import { actorColumns, actorCtes, assertAllowed, type Actor } from "./actor.ts";
import { notFound } from "./outcomes.ts";
import { runOne } from "./sql.ts";

const money = (value: SQL) => sql`round(${value}, 2)::text`;

/**
 * GET /v1/projects/:id/financials in one statement: key check, tenant filter and sums, all in
 * numeric (exact), answered as decimal strings. Amounts of different currencies are never added:
 * the totals are in `currency`, or in the project's only currency when none is asked for.
 */
export async function getProjectFinancials(db: Database, actor: Actor, projectId: string, currency: string | undefined): Promise<ProjectFinancials> {
  const row = await runOne<{ key_found: boolean; allowed: boolean; found: { summary: ProjectFinancials; currencies: string[] } | null }>(
    db,
    sql`with ${actorCtes(actor, "financials.read")}
        select ${actorColumns},
               (select json_build_object(
                         'currencies', c.currencies,
                         'summary', json_build_object(
                           'projectId', p.id, 'currency', k.currency, 'budget', ${money(sql`p.budget`)},
                           'costs', ${money(sql`s.costs`)}, 'adjustments', ${money(sql`s.adjustments`)},
                           'invoiced', ${money(sql`s.invoiced`)}, 'paid', ${money(sql`s.paid`)},
                           'remaining', ${money(sql`p.budget - s.costs - s.adjustments`)}))
                  from projects p
                 cross join lateral (
                   select coalesce(array_agg(distinct f.currency order by f.currency), '{}') as currencies
                     from financial_entries f where f.org_id = p.org_id and f.project_id = p.id
                 ) c
                 cross join lateral (
                   select coalesce(${currency ?? null}::text, case when cardinality(c.currencies) = 1 then c.currencies[1] end) as currency
                 ) k
                 cross join lateral (
                   select coalesce(sum(f.amount) filter (where f.kind = 'cost'), 0) as costs,
                          coalesce(sum(f.amount) filter (where f.kind = 'adjustment'), 0) as adjustments,
                          coalesce(sum(f.amount) filter (where f.kind = 'invoice'), 0) as invoiced,
                          coalesce(sum(f.amount) filter (where f.kind = 'payment'), 0) as paid
                     from financial_entries f
                    where f.org_id = p.org_id and f.project_id = p.id and f.currency = k.currency
                 ) s
                 where p.org_id = (select org_id from auth) and p.id = ${projectId}::uuid) as found`,
  );
  assertAllowed(row, actor, "financials.read");
  if (!row.found) throw notFound("project");
  if (!currency && row.found.currencies.length > 1) {
    const currencies = row.found.currencies;
    throw new ApiError("conflict", `the project has entries in ${currencies.join(", ")}; pass ?currency= to choose one`, { field: "currency", currencies });
  }
  return row.found.summary;
}
