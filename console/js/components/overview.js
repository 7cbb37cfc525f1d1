// @ts-check
// The pictures of how projects stand, drawn from the API's counts (GET /v1/projects/{id}/summary,
// GET /v1/overview), which the database takes over every record, so a chart never stops at the
// page of records the store holds. Each chart is an SVG (role="img", its figures in its label)
// beside a table that says the same in text, for a screen reader and for anyone who wants the
// numbers. views.js fetches the summary again when the store changes, so the pictures stay live.

import { el } from "../lib/dom.js";
import { operationOf, KINDS } from "../lib/schema.js";

/** An enum's values from the API's schema (no list is retyped here). @param {string} kind @param {string} field */
const enumOf = (kind, field) =>
  /** @type {string[]} */ (
    (operationOf("create", /** @type {any} */ (KINDS[kind]))?.schema?.properties[field]?.enum ?? []).filter((v) => v !== null)
  );

const SVG = "http://www.w3.org/2000/svg";
/** @param {string} tag @param {Record<string, string | number>} attributes @param {(Node | string)[]} [children] */
function svg(tag, attributes, children = []) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  node.append(...children);
  return node;
}

/**
 * Horizontal bars, one per [label, value], scaled to `max`; its label says every figure.
 * @param {string} name @param {[string, number][]} bars @param {number} [max]
 */
function barChart(name, bars, max = Math.max(1, ...bars.map(([, v]) => Math.abs(v)))) {
  const row = 22;
  const width = 320;
  const labelWidth = 110;
  const label = `${name}: ${bars.map(([l, v]) => `${l} ${v}`).join(", ")}`;
  return svg("svg", { class: "ov-chart", role: "img", "aria-label": label, viewBox: `0 0 ${width} ${bars.length * row}` }, [
    ...bars.flatMap(([text, value], i) => [
      svg("text", { x: 0, y: i * row + 15, class: "ov-label" }, [text]),
      svg("rect", {
        x: labelWidth,
        y: i * row + 4,
        height: row - 8,
        width: Math.round((Math.abs(value) / max) * (width - labelWidth - 50)),
        class: value < 0 ? "ov-negative" : "ov-positive",
      }),
      svg("text", { x: width - 45, y: i * row + 15, class: "ov-value" }, [String(value)]),
    ]),
  ]);
}

/** @param {string} caption @param {string[]} heads @param {(Node | string)[][]} rows */
function table(caption, heads, rows) {
  return el("table", { class: "records-table ov-table" }, [
    el("caption", {}, [caption]),
    el("thead", {}, [
      el(
        "tr",
        {},
        heads.map((h) => el("th", { scope: "col" }, [h])),
      ),
    ]),
    el(
      "tbody",
      {},
      rows.map(([head, ...cells]) => el("tr", {}, [el("th", { scope: "row" }, [head ?? ""]), ...cells.map((c) => el("td", {}, [c]))])),
    ),
  ]);
}

/** A chart and its table, as one figure. @param {Node} chart @param {HTMLElement} data */
const figure = (chart, data) => el("figure", { class: "ov-figure" }, [chart, data]);

const words = (/** @type {string} */ value) => value.replace("_", " ");

/** @param {any} tasks */
function taskFigure(tasks) {
  const byStatus = /** @type {[string, number][]} */ (Object.entries(tasks.byStatus).map(([s, n]) => [words(s), Number(n)]));
  return figure(
    barChart("Tasks by status", byStatus),
    table(
      `Tasks by status (${tasks.total}, ${tasks.overdue} overdue)`,
      ["Status", "Tasks"],
      byStatus.map(([s, n]) => [s, String(n)]),
    ),
  );
}

let chartIds = 0;

/**
 * The project's progress over time (the summary's `progress`, a point a week): the tasks made and
 * those done, as two lines on one axis, with a title and a description naming the first and last
 * figures, beside a table of every point.
 * @param {{ date: string, total: number, done: number }[]} points
 */
function progressFigure(points) {
  const caption = "Progress over time: tasks made and done, week by week";
  const rows = points.map((p) => [p.date, String(p.total), String(p.done), p.total > 0 ? `${Math.round((p.done / p.total) * 100)}%` : "—"]);
  const data = table(caption, ["Week to", "Tasks made", "Done", "Share done"], rows);
  const first = points[0];
  const last = points.at(-1);
  if (!first || !last) return figure(el("p", {}, ["No tasks yet."]), data);
  const [width, height, left, bottom, top] = [320, 150, 30, 20, 8];
  const max = Math.max(1, ...points.map((p) => p.total));
  const x = (/** @type {number} */ i) =>
    left + (points.length > 1 ? (i / (points.length - 1)) * (width - left - 10) : (width - left - 10) / 2);
  const y = (/** @type {number} */ n) => top + (1 - n / max) * (height - top - bottom);
  const line = (/** @type {"total" | "done"} */ field) => points.map((p, i) => `${x(i).toFixed(1)},${y(p[field]).toFixed(1)}`).join(" ");
  const id = `ov-progress-${++chartIds}`;
  const summary =
    `From ${first.date} to ${last.date}: tasks made went from ${first.total} to ${last.total}, ` +
    `done from ${first.done} to ${last.done} (${points.length} weeks; every week in the table).`;
  const chart = svg(
    "svg",
    { class: "ov-chart ov-progress", role: "img", "aria-labelledby": `${id}-title ${id}-desc`, viewBox: `0 0 ${width} ${height}` },
    [
      svg("title", { id: `${id}-title` }, [caption]),
      svg("desc", { id: `${id}-desc` }, [summary]),
      svg("line", { x1: left, x2: width - 10, y1: y(0), y2: y(0), class: "ov-axis" }),
      svg("text", { x: 0, y: y(max) + 4, class: "ov-label" }, [String(max)]),
      svg("text", { x: 0, y: y(0) + 4, class: "ov-label" }, ["0"]),
      svg("text", { x: left, y: height - 4, class: "ov-label" }, [first.date]),
      svg("text", { x: width - 10, y: height - 4, class: "ov-label", "text-anchor": "end" }, [last.date]),
      svg("polyline", { points: line("total"), class: "ov-line-total" }),
      svg("polyline", { points: line("done"), class: "ov-line-done" }),
      svg("text", { x: left + 6, y: top + 10, class: "ov-key-total" }, ["— made"]),
      svg("text", { x: left + 66, y: top + 10, class: "ov-key-done" }, ["— done"]),
    ],
  );
  return figure(chart, data);
}

/** Spend by month, added up, against the budget: one figure per currency. @param {any} money */
function moneyFigures(money) {
  const budget = Number(money.budget);
  const caption = `Spend by month against the budget of ${budget.toLocaleString("en")}`;
  if (money.currencies.length === 0)
    return [table(caption, ["Month", "Spent", "Spent so far", "Of the budget"], [["No costs yet", "—", "—", "—"]])];
  return money.currencies.map((/** @type {any} */ currency) => {
    let total = 0;
    const months = currency.months.map((/** @type {{ month: string, spent: string }} */ m) => {
      total += Number(m.spent);
      return [m.month, m.spent, total.toFixed(2), budget > 0 ? `${Math.round((total / budget) * 100)}%` : "—"];
    });
    const bars = /** @type {[string, number][]} */ ([
      ["budget", budget],
      ...months.map((/** @type {string[]} */ m) => [m[0], Number(m[2])]),
    ]);
    return figure(
      barChart(`Spent so far in ${currency.currency}, by month, against the budget`, bars, Math.max(budget, total, 1)),
      table(`${caption} (${currency.currency})`, ["Month", "Spent", "Spent so far", "Of the budget"], months),
    );
  });
}

/** @param {any} risks */
function riskMatrix(risks) {
  const levels = enumOf("risk", "probability");
  /** @param {string} p @param {string} i */
  const cell = (p, i) => {
    const found = risks.matrix.find((/** @type {any} */ c) => c.probability === p && c.impact === i);
    if (!found) return "—";
    const more = found.count - found.titles.length;
    return found.titles.join("; ") + (more > 0 ? ` and ${more} more` : "");
  };
  return table(
    `Risk matrix: probability by impact (${risks.open} not closed${risks.notAssessed ? `, ${risks.notAssessed} not assessed` : ""})`,
    ["Probability \\ impact", ...levels.map((i) => `${i} impact`)],
    [...levels].reverse().map((p) => [`${p} probability`, ...levels.map((i) => cell(p, i))]),
  );
}

/** @param {any} issues */
function issueFigure(issues) {
  const bySeverity = /** @type {[string, number][]} */ (
    [...enumOf("issue", "severity"), "none"].map((s) => [s === "none" ? "not triaged" : s, Number(issues.bySeverity[s] ?? 0)])
  );
  return figure(
    barChart("Open issues by severity", bySeverity),
    table(
      `Open issues by severity (${issues.open})`,
      ["Severity", "Issues"],
      bySeverity.map(([s, n]) => [s, String(n)]),
    ),
  );
}

/** A project's overview from its summary; a section the session may not read is left out. @param {any} summary */
export function renderOverview(summary) {
  const milestones = summary.milestones;
  return el("div", { class: "overview" }, [
    ...(summary.tasks ? [taskFigure(summary.tasks)] : []),
    ...(summary.progress ? [progressFigure(summary.progress)] : []),
    table(
      `Milestones (${milestones.total}, ${milestones.overdue} overdue)`,
      ["Status", "Milestones"],
      Object.entries(milestones.byStatus).map(([s, n]) => [words(s), String(n)]),
    ),
    ...(summary.money ? moneyFigures(summary.money) : []),
    ...(summary.risks ? [riskMatrix(summary.risks)] : []),
    ...(summary.issues ? [issueFigure(summary.issues)] : []),
  ]);
}

/** @param {any} p */
const schedule = (p) =>
  p.tasks ? `${p.tasks.byStatus.done} of ${p.tasks.total} done, ${p.tasks.overdue} overdue` : `${p.milestones.overdue} milestones overdue`;
/** @param {any} p */
const spend = (p) =>
  p.money
    ? `${p.money.currencies.map((/** @type {any} */ c) => `${c.spent} ${c.currency}`).join(", ") || "nothing"} of ${p.money.budget}`
    : "—";
/** @param {any} p */
const riskHealth = (p) => (p.risks ? `${p.risks.open} open, ${p.risks.severe} severe` : "—");

/**
 * Every project's health at a glance, and what is left out when there are more than were fetched.
 * @param {any[] & { more?: boolean }} projects
 */
export function renderPortfolio(projects) {
  const done = /** @type {[string, number][]} */ (
    projects.map((p) => [p.name, p.tasks && p.tasks.total > 0 ? Math.round((p.tasks.byStatus.done / p.tasks.total) * 100) : 0])
  );
  return el("div", { class: "overview" }, [
    ...(projects.more ? [el("p", { class: "notice", role: "status" }, [`Showing the first ${projects.length} projects only.`])] : []),
    figure(
      barChart("Share of tasks done, per project (%)", done, 100),
      table(
        `Every project at a glance (${projects.length})`,
        ["Project", "Status", "Dates", "Tasks done", "Schedule", "Spent of the budget", "Risks", "Open issues"],
        projects.map((p, i) => [
          p.name,
          words(p.status),
          `${p.startDate} to ${p.endDate}`,
          `${done[i]?.[1] ?? 0}%`,
          schedule(p),
          spend(p),
          riskHealth(p),
          p.issues ? String(p.issues.open) : "—",
        ]),
      ),
    ),
  ]);
}
