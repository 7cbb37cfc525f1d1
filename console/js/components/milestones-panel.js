// @ts-check
// The shown project's milestones, each with a progress bar: percentDone of its tasks, with done
// and total. Counted from the live tasks (derived.js progressOf), so a move anywhere moves the bar.

import { progressOf } from "../lib/derived.js";
import { el } from "../lib/dom.js";

/**
 * @param {{ section: HTMLElement, list: HTMLElement, store: import("../lib/store.js").Store, editable?: boolean }} options
 */
export function createMilestonesPanel({ section, list, store, editable = false }) {
  /** @type {string | null} */ let projectId = null;

  /** @param {import("../lib/store.js").Record} milestone */
  function item(milestone) {
    const progress = progressOf(milestone, store.state);
    const summary =
      progress.total === 0
        ? "No tasks yet"
        : `${progress.percentDone}% · ${progress.done}/${progress.total} done${progress.cancelled ? ` · ${progress.cancelled} cancelled` : ""}`;
    const fill = el("div", { class: "fill" });
    fill.style.width = `${progress.percentDone}%`;
    const bar = el(
      "div",
      {
        class: "bar",
        role: "progressbar",
        "aria-label": `${milestone.name} progress`,
        "aria-valuemin": "0",
        "aria-valuemax": "100",
        "aria-valuenow": String(progress.percentDone),
        "aria-valuetext": `${progress.percentDone}% done: ${progress.done} of ${progress.total} tasks`,
      },
      [fill],
    );
    const status = milestone.status === "open" ? "" : ` · ${milestone.status}`;
    return el("li", { "data-id": milestone.id, "data-status": milestone.status }, [
      el("p", { class: "milestone-head" }, [
        el("strong", {}, [milestone.name]),
        el("span", { class: "muted" }, [` due ${milestone.dueDate}${status}`]),
        ...(editable
          ? [
              el(
                "button",
                {
                  type: "button",
                  class: "link",
                  "data-edit": `milestone:${milestone.id}`,
                  "aria-label": `Edit milestone ${milestone.name}`,
                },
                ["Edit"],
              ),
            ]
          : []),
      ]),
      bar,
      el("p", { class: "milestone-summary" }, [summary]),
    ]);
  }

  function render() {
    const milestones = [...store.state.milestones.values()]
      .filter((milestone) => milestone.projectId === projectId)
      .sort((a, b) => a.dueDate.localeCompare(b.dueDate) || a.id.localeCompare(b.id));
    section.hidden = milestones.length === 0;
    list.replaceChildren(...milestones.map(item));
  }

  return {
    render,
    /** @param {string} id */
    show(id) {
      projectId = id;
      render();
    },
  };
}
