import { z } from "@hono/zod-openapi";
import { ISSUE_SEVERITIES, MILESTONE_STATUSES, PROJECT_STATUSES, RISK_LEVELS, TASK_STATUSES } from "../../domain/records.ts";
import { DateString, Uuid } from "./common.ts";

// What GET /v1/projects/{id}/summary and GET /v1/overview answer: counts and sums, not records.
// Each section needing a read scope other than projects.read is null for a caller without it.

const Count = z.number().int().min(0);
const Money = (example: string) => z.string().openapi({ description: "Exact decimal, always 2 decimals.", example });

/** { <value>: count } for every value of a list (domain/records.ts), in its order. */
const countsOf = <const T extends readonly [string, ...string[]]>(values: T, example: number[]) =>
  z.object(Object.fromEntries(values.map((v, i) => [v, Count.openapi({ example: example[i] ?? 0 })])) as Record<T[number], typeof Count>);

const TaskCounts = z
  .object({
    total: Count.openapi({ example: 42 }),
    open: Count.openapi({ description: "Not done nor cancelled.", example: 30 }),
    overdue: Count.openapi({ description: "Open, due before today.", example: 3 }),
    byStatus: countsOf(TASK_STATUSES, [18, 9, 3, 10, 2]),
  })
  .nullable()
  .openapi({ description: "The project's tasks; null without tasks.read." });

const MilestoneCounts = z.object({
  total: Count.openapi({ example: 4 }),
  overdue: Count.openapi({ description: "Open, due before today.", example: 1 }),
  byStatus: countsOf(MILESTONE_STATUSES, [3, 1, 0]),
});

const RiskLevel = z.enum(RISK_LEVELS);

const RiskCounts = z.object({
  open: Count.openapi({ description: "Risks not closed.", example: 5 }),
  notAssessed: Count.openapi({ description: "Not closed, without a probability or an impact.", example: 1 }),
  severe: Count.openapi({ description: "Not closed, high probability and high impact.", example: 1 }),
});

const RiskCell = z.object({
  probability: RiskLevel,
  impact: RiskLevel,
  count: Count.openapi({ example: 2 }),
  titles: z
    .array(z.string())
    .max(5)
    .openapi({ description: "The first five risks' titles, alphabetically.", example: ["Cabinet lead time", "Lift out of service"] }),
});

const IssueCounts = z
  .object({
    open: Count.openapi({ description: "Open or in progress.", example: 4 }),
    bySeverity: z.object({
      ...countsOf(ISSUE_SEVERITIES, [1, 2, 1, 0]).shape,
      none: Count.openapi({ description: "Not triaged yet.", example: 0 }),
    }),
  })
  .nullable()
  .openapi({ description: "The project's open issues; null without issues.read." });

const Month = z.object({
  month: z.string().openapi({ description: "YYYY-MM.", example: "2026-11" }),
  spent: Money("4200.00"),
});

const CurrencySpend = z.object({
  currency: z.string().openapi({ example: "GBP" }),
  spent: Money("9000.00").openapi({ description: "Costs and adjustments in this currency." }),
});

const moneySection = <T extends z.ZodRawShape>(extra: T) =>
  z
    .object({
      budget: Money("25000.00").openapi({ description: "The project's budget." }),
      currencies: z
        .array(CurrencySpend.extend(extra))
        .openapi({ description: "Spend per currency, alphabetically (amounts of different currencies are never added)." }),
    })
    .nullable()
    .openapi({ description: "Budget against spend; null without financials.read." });

const ProgressPoint = z.object({
  date: DateString.openapi({ description: "The last day of a week (today for the last point)." }),
  total: Count.openapi({ description: "The project's tasks made by the end of that day.", example: 40 }),
  done: Count.openapi({ description: "Of the tasks done now, those done by the end of that day.", example: 12 }),
});

const projectFields = {
  projectId: Uuid,
  name: z.string().openapi({ example: "Office fit-out" }),
  status: z.enum(PROJECT_STATUSES),
  startDate: DateString,
  endDate: DateString,
  today: DateString.openapi({ description: "The database's date the overdue counts are taken against." }),
  milestones: MilestoneCounts,
  tasks: TaskCounts,
  issues: IssueCounts,
};

export const ProjectSummarySchema = z
  .object({
    ...projectFields,
    risks: RiskCounts.extend({
      matrix: z.array(RiskCell).openapi({ description: "Risks not closed by probability and impact; only cells holding one." }),
    })
      .nullable()
      .openapi({ description: "The project's risks; null without risks.read." }),
    money: moneySection({ months: z.array(Month).openapi({ description: "Spend by month, oldest first." }) }),
    progress: z.array(ProgressPoint).nullable().openapi({
      description:
        "Tasks made and done over time, a point a week, oldest first, from the week the project started or its first task was made (at most a year back) to today; null without tasks.read. When a task was done is the last event that moved it to done; one whose events are past their retention counts from its last change.",
    }),
  })
  .openapi("ProjectSummary");

export const ProjectHealthSchema = z
  .object({
    ...projectFields,
    risks: RiskCounts.nullable().openapi({ description: "The project's risks; null without risks.read." }),
    money: moneySection({}),
  })
  .openapi("ProjectHealth");

export type ProjectSummary = z.infer<typeof ProjectSummarySchema>;
export type ProjectHealth = z.infer<typeof ProjectHealthSchema>;
