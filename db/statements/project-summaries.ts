import type { SQL } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import type { PageRequest } from "../../domain/paging.ts";
import { CLOSED_TASK_STATUSES, ISSUE_SEVERITIES, ISSUE_STATUSES, MILESTONE_STATUSES, TASK_STATUSES } from "../../domain/records.ts";
import type { Database } from "../client.ts";
import { events, financialEntries, issues, milestones, projects, risks, tasks } from "../schema/index.ts";
import { CALLER_ORG, callerColumns, callerCtes, callerOf, type CallerOutcome, type CallerRow } from "./engine/caller.ts";
import { sql } from "./engine/sql-tag.ts";
import { run, runOne } from "./engine/sql.ts";

// A project's summary (GET /v1/projects/:id/summary) and the organisation's overview (GET
// /v1/overview): counts and sums the console draws its charts from, each in one statement, so a
// chart shows every record of the project however many there are (the console's store holds
// pages). Each section needs the read scope of its records: a caller without it gets null there,
// never a count of records it may not read. The lists of statuses come from domain/records.ts.

/** Whether the caller holds `scope` (a section of the answer is null when it does not). */
const holds = (scope: string) => sql`coalesce((select ${scope}::text = any(k.scopes) from key k), false)`;

/** json_build_object('<value>', count(*) filter (where <column> = '<value>'), ...) over `values`. */
const countsBy = (column: SQL, values: readonly string[]) =>
  sql`json_build_object(${sql.join(
    values.map((v) => sql`${v}::text, count(*) filter (where ${column} = ${v})`),
    sql`, `,
  )})`;

const inList = (values: readonly string[]) =>
  sql`(${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )})`;

const OPEN_TASK = sql`t.status not in ${inList(CLOSED_TASK_STATUSES)}`;
const OPEN_ISSUE = sql`i.status in ${inList(ISSUE_STATUSES.filter((s) => s === "open" || s === "in_progress"))}`;
const money = (value: SQL) => sql`round(${value}, 2)::text`;
const SPENT_KINDS = sql`f.kind in ('cost', 'adjustment')`;
/** How many risks' titles a matrix cell names; its count says how many it holds. */
const CELL_TITLES = 5;

const taskSection = (p: SQL) => sql`case when ${holds("tasks.read")} then (
    select json_build_object('total', count(*), 'open', count(*) filter (where ${OPEN_TASK}),
             'overdue', count(*) filter (where ${OPEN_TASK} and t.due_date < current_date),
             'byStatus', ${countsBy(sql`t.status`, TASK_STATUSES)})
      from ${tasks} t where t.org_id = ${p}.org_id and t.project_id = ${p}.id) end`;

/** How many weeks the progress over time goes back at most (a year). */
const PROGRESS_WEEKS = 52;

/**
 * The project's progress over time, a point a week (each week's last day, the last point today)
 * from the week its first task was made or it started, whichever is earlier, at most a year back:
 * the tasks made by the end of that day (as they are now: a deleted task is in no point) and, of
 * those done now, the ones done by then. When a task was done is the last event that moved it to
 * done (or made it done); one whose events are past their retention counts from its last change.
 */
const progressSection = (p: SQL) => sql`case when ${holds("tasks.read")} then (
    with t as (
      select t.created_at,
             case when t.status = 'done' then coalesce(
               (select max(e.occurred_at) from ${events} e
                 where e.org_id = t.org_id and e.data->>'id' = t.id::text
                   and ((e.type = 'task.updated' and e.changes->'status'->>'to' = 'done')
                     or (e.type = 'task.created' and e.data->>'status' = 'done'))),
               t.updated_at) end as done_at
        from ${tasks} t where t.org_id = ${p}.org_id and t.project_id = ${p}.id),
    first as (select greatest(least(${p}.start_date, (select min(t.created_at at time zone 'UTC')::date from t), current_date),
                              current_date - ${PROGRESS_WEEKS * 7 - 1}::int) as day),
    points as (select least((date_trunc('week', w) + interval '6 days')::date, current_date) as day
                 from first, generate_series(first.day::timestamp, current_date::timestamp, interval '1 week') w
               union select current_date)
    select coalesce(json_agg(json_build_object('date', to_char(x.day, 'YYYY-MM-DD'),
                                               'total', (select count(*) from t where t.created_at < ((x.day + 1)::timestamp at time zone 'UTC')),
                                               'done', (select count(*) from t where t.done_at < ((x.day + 1)::timestamp at time zone 'UTC')))
                             order by x.day), '[]')
      from (select distinct day from points) x) end`;

const milestoneSection = (p: SQL) => sql`(
    select json_build_object('total', count(*),
             'overdue', count(*) filter (where m.status = 'open' and m.due_date < current_date),
             'byStatus', ${countsBy(sql`m.status`, MILESTONE_STATUSES)})
      from ${milestones} m where m.org_id = ${p}.org_id and m.project_id = ${p}.id)`;

const riskSection = (p: SQL, matrix: boolean) => sql`case when ${holds("risks.read")} then (
    select json_build_object('open', count(*), 'notAssessed', count(*) filter (where r.probability is null or r.impact is null),
             'severe', count(*) filter (where r.probability = 'high' and r.impact = 'high')${
               matrix
                 ? sql`,
             'matrix', (select coalesce(json_agg(json_build_object('probability', c.probability, 'impact', c.impact,
                                          'count', c.n, 'titles', c.titles) order by c.probability, c.impact), '[]')
                          from (select x.probability, x.impact, count(*) as n,
                                       (array_agg(x.title order by x.title, x.id))[1:${CELL_TITLES}] as titles
                                  from ${risks} x
                                 where x.org_id = ${p}.org_id and x.project_id = ${p}.id and x.status <> 'closed'
                                   and x.probability is not null and x.impact is not null
                                 group by x.probability, x.impact) c)`
                 : sql``
             })
      from ${risks} r where r.org_id = ${p}.org_id and r.project_id = ${p}.id and r.status <> 'closed') end`;

const issueSection = (p: SQL) => sql`case when ${holds("issues.read")} then (
    select json_build_object('open', count(*),
             'bySeverity', ${countsBy(sql`i.severity`, ISSUE_SEVERITIES)}::jsonb || jsonb_build_object('none', count(*) filter (where i.severity is null)))
      from ${issues} i where i.org_id = ${p}.org_id and i.project_id = ${p}.id and ${OPEN_ISSUE}) end`;

/**
 * Money spent (costs and adjustments) against the budget, per currency (amounts of different
 * currencies are never added); with `months`, each currency's spend by month too.
 */
const moneySection = (p: SQL, months: boolean) => sql`case when ${holds("financials.read")} then json_build_object(
    'budget', ${money(sql`${p}.budget`)},
    'currencies', (select coalesce(json_agg(json_build_object('currency', s.currency, 'spent', ${money(sql`s.spent`)}${
      months
        ? sql`,
                 'months', (select json_agg(json_build_object('month', mm.month, 'spent', ${money(sql`mm.spent`)}) order by mm.month)
                              from (select to_char(f.date, 'YYYY-MM') as month, sum(f.amount) as spent
                                      from ${financialEntries} f
                                     where f.org_id = ${p}.org_id and f.project_id = ${p}.id and f.currency = s.currency and ${SPENT_KINDS}
                                     group by 1) mm)`
        : sql``
    }) order by s.currency), '[]')
                     from (select f.currency, coalesce(sum(f.amount) filter (where ${SPENT_KINDS}), 0) as spent
                             from ${financialEntries} f where f.org_id = ${p}.org_id and f.project_id = ${p}.id
                            group by f.currency) s)) end`;

const projectFields = (p: SQL) => sql`'projectId', ${p}.id, 'name', ${p}.name, 'status', ${p}.status,
    'startDate', ${p}.start_date, 'endDate', ${p}.end_date, 'today', current_date`;

export type SummaryFound<T> = { caller: CallerOutcome; found: T | null };

/** GET /v1/projects/:id/summary in one statement: caller, tenant filter and every count. */
export async function getProjectSummary(db: Database, actor: Actor, projectId: string): Promise<SummaryFound<unknown>> {
  const p = sql`p`;
  const row = await runOne<CallerRow & { found: unknown }>(
    db,
    sql`with ${callerCtes(actor, "projects.read")}
        select ${callerColumns},
               (select json_build_object(${projectFields(p)},
                         'tasks', ${taskSection(p)}, 'milestones', ${milestoneSection(p)},
                         'risks', ${riskSection(p, true)}, 'issues', ${issueSection(p)}, 'money', ${moneySection(p, true)},
                         'progress', ${progressSection(p)})
                  from ${projects} p where p.org_id = ${CALLER_ORG} and p.id = ${projectId}::uuid) as found`,
  );
  return { caller: callerOf(row), found: row.found };
}

/**
 * GET /v1/overview in one statement: a page of the organisation's projects in creation order, each
 * with its schedule (tasks and milestones), money and risk health; one row per project, the caller's
 * columns on each, and one row more than the page when there is a next page.
 */
export async function getOrganisationOverview(
  db: Database,
  actor: Actor,
  page: PageRequest,
): Promise<{ caller: CallerOutcome; projects: Array<{ createdAt: string; id: string; summary: unknown }> }> {
  const p = sql`p`;
  const after = page.after ? sql`and (p.created_at, p.id) > (${page.after.values[0]}::timestamptz, ${page.after.id}::uuid)` : sql``;
  const rows = await run<CallerRow & { id: string | null; createdAt: string | null; summary: unknown }>(
    db,
    sql`with ${callerCtes(actor, "projects.read")},
        page as (select p.id, p.created_at,
                        json_build_object(${projectFields(p)}, 'tasks', ${taskSection(p)}, 'milestones', ${milestoneSection(p)},
                          'risks', ${riskSection(p, false)}, 'issues', ${issueSection(p)}, 'money', ${moneySection(p, false)}) as summary
                   from ${projects} p where p.org_id = ${CALLER_ORG} ${after}
                  order by p.created_at, p.id limit ${page.limit + 1})
        select ${callerColumns}, page.id,
               to_char(page.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt", page.summary
          from (select 1) one left join page on true
         order by page.created_at, page.id`,
  );
  return {
    caller: callerOf(rows[0]!),
    projects: rows.filter((r) => r.id !== null).map((r) => ({ id: r.id!, createdAt: r.createdAt!, summary: r.summary })),
  };
}
