// @ts-check
// A project's overview, drawn from its records in the store (live, like every view): its tasks by
// status, spend by month against the budget (costs and adjustments), the risk matrix (probability
// by impact, each cell naming its risks) and the open issues by severity. Each picture is a table
// (readable by a screen reader as it is), its bars drawn with CSS widths.

import { el } from "../lib/dom.js";
import { operationOf, KINDS } from "../lib/schema.js";

/** An enum's values from the API's schema (no list is retyped here). @param {string} kind @param {string} field */
const enumOf = (kind, field) =>
  /** @type {string[]} */ (
    (operationOf("create", /** @type {any} */ (KINDS[kind]))?.schema?.properties[field]?.enum ?? []).filter((v) => v !== null)
  );

/** A bar of `value` out of `max`. @param {number} value @param {number} max */
function bar(value, max) {
  const fill = el("span", { class: "ov-fill" });
  fill.style.width = `${max > 0 ? Math.round((Math.abs(value) / max) * 100) : 0}%`;
  return el("span", { class: "ov-bar", "aria-hidden": "true" }, [fill]);
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

/** @param {import("../lib/store.js").Store} store @param {string} projectId */
export function renderOverview(store, projectId) {
  const { state } = store;
  const project = state.projects.get(projectId);
  const of = (/** @type {Map<string, any>} */ map) => [...map.values()].filter((r) => r.projectId === projectId);
  const tasks = of(state.tasks);
  const statuses = enumOf("task", "status");
  const byStatus = statuses.map((s) => [s.replace("_", " "), tasks.filter((t) => t.status === s).length]);

  const spend = new Map();
  for (const entry of of(state.entries)) {
    if (entry.kind !== "cost" && entry.kind !== "adjustment") continue;
    const month = entry.date.slice(0, 7);
    spend.set(month, (spend.get(month) ?? 0) + Number(entry.amount));
  }
  const budget = Number(project?.budget ?? 0);
  let total = 0;
  const months = [...spend.keys()].sort().map((month) => {
    total += spend.get(month);
    return [month, spend.get(month), total];
  });
  const most = Math.max(budget, total, 1);

  const levels = enumOf("risk", "probability");
  const risks = of(state.risks).filter((r) => r.status !== "closed");
  const cell = (/** @type {string} */ p, /** @type {string} */ i) =>
    risks
      .filter((r) => r.probability === p && r.impact === i)
      .map((r) => r.title)
      .join("; ") || "—";
  const unassessed = risks.filter((r) => !r.probability || !r.impact);

  const severities = enumOf("issue", "severity");
  const open = of(state.issues).filter((i) => i.status === "open" || i.status === "in_progress");
  const bySeverity = [...severities, null].map((s) => [s ?? "not triaged", open.filter((i) => (i.severity ?? null) === s).length]);
  const mostIssues = Math.max(1, ...bySeverity.map(([, n]) => Number(n)));

  return el("div", { class: "overview" }, [
    table(
      `Tasks by status (${tasks.length})`,
      ["Status", "Tasks", "Share"],
      byStatus.map(([s, n]) => [String(s), String(n), bar(Number(n), Math.max(tasks.length, 1))]),
    ),
    table(
      `Spend by month against the budget of ${budget.toLocaleString("en")}`,
      ["Month", "Spent", "Spent so far", "Of the budget"],
      months.length
        ? months.map(([m, s, t]) => [String(m), Number(s).toFixed(2), Number(t).toFixed(2), bar(Number(t), most)])
        : [["No costs yet", "—", "—", ""]],
    ),
    table(
      `Risk matrix: probability by impact (${risks.length} not closed${unassessed.length ? `, ${unassessed.length} not assessed` : ""})`,
      ["Probability \\ impact", ...levels.map((i) => `${i} impact`)],
      [...levels].reverse().map((p) => [`${p} probability`, ...levels.map((i) => cell(p, i))]),
    ),
    table(
      `Open issues by severity (${open.length})`,
      ["Severity", "Issues", "Share"],
      bySeverity.map(([s, n]) => [String(s), String(n), bar(Number(n), mostIssues)]),
    ),
  ]);
}
