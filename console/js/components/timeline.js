// @ts-check
// A project's timeline: its tasks as bars on a calendar axis (from the start date, when the task
// has one, to the due date) and its milestones as diamonds, each dependency an arrow from the
// blocker's bar to the task it holds up. Dragging a bar (or focusing it and pressing the left and
// right arrow keys) moves its dates by whole days through the API, with If-Match: a refusal or a
// stale version says so and the bar stays where the API has it. A table beside it lists the same
// for screen readers. Drawn from the store, so others' changes move the bars at once.

import { el } from "../lib/dom.js";
import { describeRefusal } from "../lib/refusals.js";
import { KINDS, operationOf } from "../lib/schema.js";

const DAY_MS = 86_400_000;
const ROW = 28;
const HEAD = 36;
const SVG = "http://www.w3.org/2000/svg";

/** @param {string} date */
const dayOf = (date) => Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
/** @param {number} day */
const dateOf = (day) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** An SVG element. @param {string} tag @param {Record<string, string | number>} attributes @param {Node[]} [children] */
function svg(tag, attributes, children = []) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  node.append(...children);
  return node;
}

/** The month names and the weeks' lines. @param {number} first @param {number} last @param {(day: number) => number} x @param {number} height */
function axis(first, last, x, height) {
  const marks = [];
  for (let day = first; day <= last; day++) {
    const date = dateOf(day);
    if (date.endsWith("-01") || day === first)
      marks.push(svg("text", { x: x(day) + 2, y: 14, class: "tl-month" }, [document.createTextNode(date.slice(0, 7))]));
    if (new Date(day * DAY_MS).getUTCDay() === 1) marks.push(svg("line", { x1: x(day), x2: x(day), y1: 20, y2: height, class: "tl-week" }));
  }
  return marks;
}

/** The same as a table, for screen readers. @param {any[]} tasks @param {any[]} milestones @param {import("../lib/store.js").Store} store */
function summaryTable(tasks, milestones, store) {
  return el("table", { class: "records-table" }, [
    el("caption", {}, ["The timeline's tasks and milestones"]),
    el("thead", {}, [
      el(
        "tr",
        {},
        ["Task or milestone", "Starts", "Due", "Waits for"].map((h) => el("th", { scope: "col" }, [h])),
      ),
    ]),
    el("tbody", {}, [
      ...tasks.map((t) =>
        el("tr", {}, [
          el("th", { scope: "row" }, [t.title]),
          el("td", {}, [t.startDate ?? "—"]),
          el("td", {}, [t.dueDate]),
          el("td", {}, [
            (t.blockedBy ?? []).map((/** @type {string} */ id) => store.state.tasks.get(id)?.title ?? "another task").join(", ") || "—",
          ]),
        ]),
      ),
      ...milestones.map((m) =>
        el("tr", {}, [
          el("th", { scope: "row" }, [`Milestone: ${m.name}`]),
          el("td", {}, ["—"]),
          el("td", {}, [m.dueDate]),
          el("td", {}, ["—"]),
        ]),
      ),
    ]),
  ]);
}

/**
 * @param {{ api: import("../lib/api.js").Api, store: import("../lib/store.js").Store, manage: boolean }} options
 */
// eslint-disable-next-line max-lines-per-function -- a component: the scale, the drag and the DOM handlers share one closure
export function createTimeline({ api, store, manage }) {
  /** @type {HTMLElement | null} */ let root = null;
  /** @type {string | null} */ let projectId = null;
  let scale = { first: 0, px: 20 };
  /** @type {{ id: string, x: number, moved: number, bar: SVGElement } | null} */ let drag = null;

  /** @param {any} task */
  const span = (task) => {
    const end = dayOf(task.dueDate);
    const start = task.startDate ? Math.min(dayOf(task.startDate), end) : end;
    return { start, end };
  };

  function render() {
    if (!root || drag) return;
    const tasks = [...store.state.tasks.values()]
      .filter((t) => t.projectId === projectId)
      .sort((a, b) => span(a).start - span(b).start || a.title.localeCompare(b.title));
    const milestones = [...store.state.milestones.values()].filter((m) => m.projectId === projectId);
    const days = [...tasks.flatMap((t) => [span(t).start, span(t).end]), ...milestones.map((m) => dayOf(m.dueDate))];
    const first = (days.length ? Math.min(...days) : dayOf(new Date().toISOString().slice(0, 10))) - 3;
    const last = (days.length ? Math.max(...days) : first) + 4;
    scale = { first, px: Math.max(6, Math.min(28, Math.floor(1100 / (last - first + 1)))) };
    const x = (/** @type {number} */ day) => (day - first) * scale.px;
    const width = x(last + 1);
    const height = HEAD + (tasks.length + 1) * ROW;
    const rowOf = new Map(tasks.map((t, i) => [t.id, i]));
    const marks = axis(first, last, x, height);
    const arrows = tasks.flatMap((task) =>
      (task.blockedBy ?? [])
        .filter((/** @type {string} */ id) => rowOf.has(id))
        .map((/** @type {string} */ id) => {
          const blocker = /** @type {any} */ (store.state.tasks.get(id));
          const [fromX, fromY] = [x(span(blocker).end + 1), HEAD + /** @type {number} */ (rowOf.get(id)) * ROW + ROW / 2];
          const [toX, toY] = [x(span(task).start), HEAD + /** @type {number} */ (rowOf.get(task.id)) * ROW + ROW / 2];
          return svg("path", {
            d: `M${fromX},${fromY} C${fromX + 14},${fromY} ${toX - 14},${toY} ${toX},${toY}`,
            class: "tl-arrow",
            "marker-end": "url(#tl-head)",
          });
        }),
    );
    const bars = tasks.map((task, i) => {
      const { start, end } = span(task);
      const label = `${task.title}: ${task.startDate ? `${task.startDate} to ` : "due "}${task.dueDate}`;
      return svg(
        "g",
        {
          class: `tl-task status-${task.status}`,
          "data-id": task.id,
          tabindex: 0,
          role: "button",
          "aria-label": manage ? `${label}. Arrow keys move it by a day.` : label,
        },
        [
          svg("rect", { x: x(start), y: HEAD + i * ROW + 5, width: x(end + 1) - x(start), height: ROW - 10, rx: 4 }),
          svg("text", { x: x(end + 1) + 4, y: HEAD + i * ROW + ROW / 2 + 4 }, [document.createTextNode(task.title)]),
        ],
      );
    });
    const diamonds = milestones.map((m) => {
      const cx = x(dayOf(m.dueDate)) + scale.px / 2;
      const cy = HEAD - 8;
      return svg("path", { d: `M${cx},${cy - 7} L${cx + 7},${cy} L${cx},${cy + 7} L${cx - 7},${cy} Z`, class: "tl-milestone" }, [
        svg("title", {}, [document.createTextNode(`${m.name}, due ${m.dueDate}`)]),
      ]);
    });
    const defs = svg("defs", {}, [
      svg("marker", { id: "tl-head", viewBox: "0 0 8 8", refX: 7, refY: 4, markerWidth: 7, markerHeight: 7, orient: "auto" }, [
        svg("path", { d: "M0,0 L8,4 L0,8 Z" }),
      ]),
    ]);
    const picture = svg("svg", { class: "timeline", width: width + 260, height, role: "group", "aria-label": "Timeline" }, [
      defs,
      ...marks,
      ...arrows,
      ...diamonds,
      ...bars,
    ]);
    root.replaceChildren(
      el("p", { class: "notice tl-notice", role: "alert", hidden: true }),
      el("div", { class: "tl-wrap" }, [picture]),
      summaryTable(tasks, milestones, store),
    );
  }

  /** Moves a task's dates by `days` through the API (If-Match). @param {string} id @param {number} days */
  async function shift(id, days) {
    const task = store.state.tasks.get(id);
    const operation = operationOf("update", KINDS.task);
    if (!task || !operation || days === 0) return render();
    /** @type {Record<string, string>} */ const body = { dueDate: dateOf(dayOf(task.dueDate) + days) };
    if (task.startDate) body.startDate = dateOf(dayOf(task.startDate) + days);
    try {
      const path = operation.path.replace("{id}", encodeURIComponent(id));
      store.load("tasks", [await api.write(operation.method, path, body, { "if-match": `"${task.version}"` })]);
      render();
    } catch (error) {
      if (/** @type {any} */ (error)?.status === 412) store.load("tasks", [await api.task(id)]);
      render();
      const notice = /** @type {HTMLElement | null} */ (root?.querySelector(".tl-notice") ?? null);
      if (notice)
        Object.assign(notice, {
          hidden: false,
          textContent: `“${task.title}” was not moved: ${/** @type {any} */ (error)?.status === 412 ? "someone changed it first; the bar shows it as it is now. (412 precondition_failed)" : describeRefusal(error)}`,
        });
    }
    /** @type {HTMLElement | null} */ (root?.querySelector(`[data-id="${CSS.escape(id)}"]`) ?? null)?.focus();
  }

  /** @param {HTMLElement} into @param {string | null} project */
  function show(into, project) {
    root = into;
    projectId = project;
    render();
    if (!manage) return;
    into.onpointerdown = (event) => {
      const bar = /** @type {Element} */ (event.target).closest?.(".tl-task");
      const id = bar?.getAttribute("data-id");
      if (!bar || !id) return;
      drag = { id, x: event.clientX, moved: 0, bar: /** @type {SVGElement} */ (bar) };
      bar.setPointerCapture?.(event.pointerId);
    };
    into.onpointermove = (event) => {
      if (!drag) return;
      drag.moved = event.clientX - drag.x;
      drag.bar.setAttribute("transform", `translate(${Math.round(drag.moved / scale.px) * scale.px},0)`);
    };
    into.onpointerup = () => {
      if (!drag) return;
      const { id, moved } = drag;
      drag = null;
      void shift(id, Math.round(moved / scale.px));
    };
    into.onkeydown = (event) => {
      const id = /** @type {Element} */ (event.target).closest?.(".tl-task")?.getAttribute("data-id");
      if (id && (event.key === "ArrowLeft" || event.key === "ArrowRight")) {
        event.preventDefault();
        void shift(id, event.key === "ArrowLeft" ? -1 : 1);
      }
    };
  }

  store.subscribe(() => render());
  return { show, hide: () => ((root = null), undefined) };
}
