import type { SQL } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import type { Database } from "../client.ts";
import { financialEntries, projects } from "../schema/index.ts";
import { CALLER_ORG, callerColumns, callerCtes, callerOf, type CallerOutcome, type CallerRow } from "./engine/caller.ts";
import { sql } from "./engine/sql-tag.ts";
import { runOne } from "./engine/sql.ts";

/** A project's money, added up in numeric (exact) and answered as decimal strings. */
export interface ProjectFinancials {
  projectId: string;
  /** The currency the totals are in; null when the project has no entries. */
  currency: string | null;
  budget: string;
  costs: string;
  adjustments: string;
  invoiced: string;
  paid: string;
  remaining: string;
}

const money = (value: SQL) => sql`round(${value}, 2)::text`;

/**
 * GET /v1/projects/:id/financials in one statement: key check, tenant filter and sums. Amounts of
 * different currencies are never added: the totals are in `currency`, or in the project's only
 * currency when none is asked for (`found.currencies` lists them all).
 */
export async function getProjectFinancials(
  db: Database,
  actor: Actor,
  projectId: string,
  currency: string | undefined,
): Promise<{ caller: CallerOutcome; found: { summary: ProjectFinancials; currencies: string[] } | null }> {
  const row = await runOne<CallerRow & { found: { summary: ProjectFinancials; currencies: string[] } | null }>(
    db,
    sql`with ${callerCtes(actor, "financials.read")}
        select ${callerColumns},
               (select json_build_object(
                         'currencies', c.currencies,
                         'summary', json_build_object(
                           'projectId', p.id, 'currency', k.currency, 'budget', ${money(sql`p.budget`)},
                           'costs', ${money(sql`s.costs`)}, 'adjustments', ${money(sql`s.adjustments`)},
                           'invoiced', ${money(sql`s.invoiced`)}, 'paid', ${money(sql`s.paid`)},
                           'remaining', ${money(sql`p.budget - s.costs - s.adjustments`)}))
                  from ${projects} p
                 cross join lateral (
                   select coalesce(array_agg(distinct f.currency order by f.currency), '{}') as currencies
                     from ${financialEntries} f where f.org_id = p.org_id and f.project_id = p.id
                 ) c
                 cross join lateral (
                   select coalesce(${currency ?? null}::text, case when cardinality(c.currencies) = 1 then c.currencies[1] end) as currency
                 ) k
                 cross join lateral (
                   select coalesce(sum(f.amount) filter (where f.kind = 'cost'), 0) as costs,
                          coalesce(sum(f.amount) filter (where f.kind = 'adjustment'), 0) as adjustments,
                          coalesce(sum(f.amount) filter (where f.kind = 'invoice'), 0) as invoiced,
                          coalesce(sum(f.amount) filter (where f.kind = 'payment'), 0) as paid
                     from ${financialEntries} f
                    where f.org_id = p.org_id and f.project_id = p.id and f.currency = k.currency
                 ) s
                 where p.org_id = ${CALLER_ORG} and p.id = ${projectId}::uuid) as found`,
  );
  return { caller: callerOf(row), found: row.found };
}
