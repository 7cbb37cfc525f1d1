// @ts-check
// The project list: one button per project the key can read; the selected one is aria-current.

/**
 * @param {{ list: HTMLElement, store: import("../lib/store.js").Store, onSelect: (projectId: string) => void }} options
 */
export function createProjectsPanel({ list, store, onSelect }) {
  /** @type {string | null} */ let selected = null;

  function render() {
    list.replaceChildren(
      ...[...store.state.projects.values()].map((project) => {
        const button = document.createElement("button");
        button.type = "button";
        button.dataset.id = project.id;
        button.setAttribute("aria-current", String(project.id === selected));
        const status = Object.assign(document.createElement("span"), {
          className: "status",
          textContent: project.status.replace("_", " "),
        });
        button.append(project.name, status);
        const item = document.createElement("li");
        item.append(button);
        return item;
      }),
    );
  }

  list.addEventListener("click", (event) => {
    const id = /** @type {HTMLElement} */ (event.target).closest("button")?.dataset.id;
    if (id) onSelect(id);
  });

  return {
    render,
    /** @param {string} projectId */
    select(projectId) {
      selected = projectId;
      render();
    },
  };
}
