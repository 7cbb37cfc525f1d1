// @ts-check
// A table of one kind of record (tasks, milestones, risks, issues, financial entries, people,
// labels) with chosen columns, sort and filters, all kept in the address (lib/view-state.js). Its
// columns and filters come from the kind's request schema (lib/schema.js): every field is a column
// one may show, every enum and reference a filter, the first date field a range, and a text search
// over the record's words. It says how many records it shows of how many it holds, and when the
// API listed more than it fetched. Rows follow the store, so changes from elsewhere show at once.

import { el } from "../lib/dom.js";
import { createRowWindow, WINDOWED_FROM } from "../lib/row-window.js";
import { fieldsOf, isLongText } from "../lib/schema.js";
import { setViewParams, viewParams } from "../lib/view-state.js";
import { shownValue } from "./conflict.js";
import { savedViewTools } from "./saved-views.js";

/** @typedef {import("../lib/schema.js").Field} Field */

/** Long text (descriptions, mitigations) is searched, not shown as a column by default. @param {Field} field */
const isLong = (field) => isLongText(field.schema);
/** @param {Field} field */
const isDate = (field) => field.schema.format === "date";
/** @param {Field} field */
const isFilter = (field) => Boolean(field.schema.enum || (field.refers && field.refers !== "projects" && field.refers !== "tasks"));

/**
 * @param {{
 *   root: HTMLElement,
 *   store: import("../lib/store.js").Store,
 *   kind: import("../lib/schema.js").Kind,
 *   rows: () => any[],
 *   caption: string,
 *   manage: boolean,
 *   more: () => boolean,
 *   withProject?: boolean,
 *   saved?: import("./saved-views.js").SavedViews,
 * }} options
 */
// eslint-disable-next-line max-lines-per-function -- a component: its fields, the address's state and the DOM handlers share one closure
export function createRecordTable({ root, store, kind, rows, caption, manage, more, withProject = false, saved }) {
  const fields = fieldsOf("create", kind).filter((field) => withProject || field.refers !== "projects");
  const dateField = fields.find(isDate);
  const filters = fields.filter(isFilter);
  const plural = kind.collection === "entries" ? "financial entries" : kind.collection === "people" ? "people" : `${kind.noun}s`;
  const id = (/** @type {string} */ name) => `tbl-${name}`;

  /** The columns shown: the address's `cols`, else every short field. */
  function columns() {
    const chosen = viewParams().get("cols")?.split(",") ?? fields.filter((f) => !isLong(f)).map((f) => f.name);
    return fields.filter((field) => chosen.includes(field.name));
  }

  /**
   * What the address asks of the rows (read once a render, not once a record).
   * @param {URLSearchParams} params
   */
  function matcher(params) {
    const wanted = filters.map((field) => /** @type {const} */ ([field.name, params.get(field.name)])).filter(([, value]) => value);
    const from = params.get("from");
    const to = params.get("to");
    const q = params.get("q")?.trim().toLowerCase();
    const words = fields.filter((f) => !f.schema.enum && !f.refers);
    /** @param {any} record */
    return (record) => {
      for (const [name, value] of wanted) {
        const held = record[name];
        if (Array.isArray(held) ? !held.includes(value) : String(held ?? "") !== value) return false;
      }
      if (dateField && from && !(record[dateField.name] >= from)) return false;
      if (dateField && to && !(record[dateField.name] <= to)) return false;
      if (q) {
        const text = words
          .map((f) => String(record[f.name] ?? ""))
          .join(" ")
          .toLowerCase();
        if (!q.split(/\s+/).every((word) => text.includes(word))) return false;
      }
      return true;
    };
  }

  /**
   * The records in the address's order: each one's rank taken once, then compared.
   * @param {any[]} records @param {URLSearchParams} params
   */
  function sorted(records, params) {
    const field = fields.find((f) => f.name === params.get("sort")) ?? fields[0];
    if (!field) return records;
    const rank = (/** @type {any} */ record) => {
      const value = record[field.name];
      if (field.schema.enum) return field.schema.enum.indexOf(value);
      if (field.refers) return shownValue(field.name, value, store).toLowerCase();
      return value ?? "";
    };
    const desc = params.get("dir") === "desc";
    const ranked = records.map((record) => ({ record, rank: rank(record) }));
    const collator = new Intl.Collator(undefined, { numeric: true });
    ranked.sort((a, b) => {
      const [x, y] = [a.rank, b.rank];
      const order = typeof x === "number" && typeof y === "number" ? x - y : collator.compare(String(x), String(y));
      return (desc ? -order : order) || a.record.id.localeCompare(b.record.id);
    });
    return ranked.map(({ record }) => record);
  }

  /** @param {Field} field */
  function filterControl(field) {
    const choices = field.schema.enum
      ? field.schema.enum.filter((v) => v !== null).map((v) => [String(v), String(v).replace("_", " ")])
      : [...store.state[field.refers === "labels" ? "labels" : field.refers === "milestones" ? "milestones" : "people"].values()]
          .filter((r) => field.refers !== "milestones" || rows().some((row) => row.projectId === r.projectId))
          .map((r) => [r.id, r.name ?? r.title]);
    const wanted = viewParams().get(field.name) ?? "";
    return el("div", { class: "tool" }, [
      el("label", { for: id(field.name) }, [field.label]),
      el("select", { id: id(field.name), name: field.name }, [
        el("option", { value: "" }, ["Any"]),
        ...choices.map(([value, text]) => el("option", { value, selected: value === wanted }, [text ?? value ?? ""])),
      ]),
    ]);
  }

  function renderTools() {
    const params = viewParams();
    const shown = new Set(columns().map((f) => f.name));
    const input = (/** @type {string} */ name, /** @type {string} */ label, /** @type {string} */ type) =>
      el("label", { for: id(name) }, [
        label,
        el("input", { id: id(name), name, type, value: params.get(name) ?? "", autocomplete: "off" }),
      ]);
    return el("form", { class: "table-tools", role: "search", "aria-label": `Filter ${plural}` }, [
      input("q", "Search", "search"),
      ...filters.map(filterControl),
      ...(dateField ? [input("from", `${dateField.label} from`, "date"), input("to", `${dateField.label} to`, "date")] : []),
      el("details", { class: "columns-choice" }, [
        el("summary", {}, ["Columns"]),
        el("fieldset", {}, [
          el("legend", {}, ["Columns shown"]),
          ...fields.map((field) =>
            el("label", {}, [
              el("input", { type: "checkbox", name: "column", value: field.name, checked: shown.has(field.name) }),
              field.label,
            ]),
          ),
        ]),
      ]),
      ...(manage ? [el("button", { type: "button", class: "primary", "data-create": kind.key }, [`New ${kind.noun}`])] : []),
    ]);
  }

  /** @param {any} record @param {string} text @param {number} index */
  function cell(record, text, index) {
    if (index > 0) return el("td", {}, [text]);
    const content = manage ? el("button", { type: "button", class: "link", "data-edit": `${kind.key}:${record.id}` }, [text]) : text;
    return el("th", { scope: "row" }, [content]);
  }

  /**
   * The rows built, by record id, each with the text it shows: a render builds a row only when its
   * text changed, so a live change replaces the one row it changed.
   * @type {Map<string, { node: HTMLElement, key: string }>}
   */
  const built = new Map();
  /** The table itself, built once a render() (its head again when the columns or the sort change). */
  let body = /** @type {HTMLElement | null} */ (null);
  let head = /** @type {HTMLElement | null} */ (null);
  let headKey = "";

  /** @param {any} record @param {Field[]} shownColumns */
  function rowOf(record, shownColumns) {
    const texts = shownColumns.map((field) => shownValue(field.name, record[field.name], store));
    const key = texts.join("\u0000");
    const known = built.get(record.id);
    if (known && known.key === key) return known.node;
    const node = el(
      "tr",
      { "data-id": record.id },
      texts.map((text, i) => cell(record, text, i)),
    );
    built.set(record.id, { node, key });
    return node;
  }

  /** The rows in view drawn, the others counted (row-window.js). */
  const rowWindow = createRowWindow();

  function renderRows() {
    const all = rows();
    const params = viewParams();
    const shown = sorted(all.filter(matcher(params)), params);
    const shownColumns = columns();
    const sortedBy = params.get("sort") ?? fields[0]?.name;
    const dir = params.get("dir") === "desc" ? "descending" : "ascending";
    const drawnAsScrolled = shown.length > WINDOWED_FROM ? "; rows are drawn as they are scrolled into view" : "";
    const count = `Showing ${shown.length} of ${all.length} ${plural}${more() ? `; the API holds more than the ${all.length} fetched` : ""}${drawnAsScrolled}.`;
    const counter = root.querySelector(".table-count");
    if (counter && counter.textContent !== count) counter.textContent = count;
    const wrap = root.querySelector(".table-wrap");
    if (!wrap) return;
    if (!body || !head || !wrap.contains(body)) {
      head = el("thead");
      body = el("tbody");
      headKey = "";
      built.clear();
      wrap.replaceChildren(el("table", { class: "records-table" }, [el("caption", {}, [caption]), head, body]));
    }
    const columnsKey = `${shownColumns.map((f) => f.name).join(",")}|${sortedBy}|${dir}`;
    if (columnsKey !== headKey) {
      // Other columns: every row is built again.
      if (columnsKey.split("|")[0] !== headKey.split("|")[0]) built.clear();
      headKey = columnsKey;
      head.replaceChildren(
        el(
          "tr",
          { "aria-rowindex": "1" },
          shownColumns.map((field) => {
            const sort = field.name === sortedBy ? dir : undefined;
            return el("th", { scope: "col", "aria-sort": sort }, [
              el("button", { type: "button", "data-sort": field.name }, [field.label, sort ? (sort === "ascending" ? " ▲" : " ▼") : ""]),
            ]);
          }),
        ),
      );
    }
    rowWindow.place({
      wrap: /** @type {HTMLElement} */ (wrap),
      head,
      body,
      count: shown.length,
      columns: shownColumns.length,
      rowAt: (i) => rowOf(shown[i], shownColumns),
      idAt: (i) => shown[i].id,
    });
    const held = new Set(all.map((record) => record.id));
    for (const id of built.keys()) if (!held.has(id)) built.delete(id);
  }

  /** The saved view chosen last (kept across a render). */
  let chosenView = "";
  /** The person's saved views of this list (saved-views.js). */
  function savedTools() {
    if (!saved) return el("div", { class: "table-tools" });
    return savedViewTools({
      saved,
      idOf: id,
      chosen: chosenView,
      query: () => tableQuery(),
      apply(view) {
        chosenView = view.id;
        const chosen = Object.fromEntries(new URLSearchParams(view.query));
        const cleared = Object.fromEntries([...new URLSearchParams(tableQuery()).keys()].map((k) => [k, undefined]));
        setViewParams({ ...cleared, ...chosen });
        render();
      },
      say: (text) => root.querySelector(".table-count")?.replaceChildren(text),
    });
  }

  function render() {
    root.replaceChildren(
      renderTools(),
      savedTools(),
      el("p", { class: "table-count", role: "status" }),
      el("div", { class: "table-wrap" }),
    );
    renderRows();
  }

  /** The table's part of the address: what a saved view keeps. */
  const tableQuery = () => {
    const params = viewParams();
    params.delete("view");
    params.delete("project");
    return params.toString();
  };

  root.oninput = (event) => {
    const target = /** @type {HTMLInputElement} */ (event.target);
    // The saved views' own controls (saved-views.js) are not the table's.
    if (target.name === "view-name" || target.name === "saved-view") return;
    if (target.name === "column") {
      const chosen = [...root.querySelectorAll("input[name=column]:checked")].map((box) => /** @type {HTMLInputElement} */ (box).value);
      setViewParams({ cols: chosen.join(",") });
    } else if (target.name) setViewParams({ [target.name]: target.value });
    renderRows();
  };
  root.onclick = (event) => {
    const sort = /** @type {HTMLElement} */ (event.target).closest("[data-sort]")?.getAttribute("data-sort");
    if (!sort) return;
    const params = viewParams();
    const current = params.get("sort") ?? fields[0]?.name;
    setViewParams({ sort, dir: current === sort && params.get("dir") !== "desc" ? "desc" : "asc" });
    renderRows();
    /** @type {HTMLElement | null} */ (root.querySelector(`[data-sort="${sort}"]`))?.focus();
  };
  root.onsubmit = (event) => event.preventDefault();

  return { render, renderRows };
}
