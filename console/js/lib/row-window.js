// @ts-check
// A long table's rows drawn as it is scrolled: past WINDOWED_FROM rows, only those in the scrolled
// view (and OVERSCAN either side) are in the DOM, spacer rows (hidden from screen readers) holding the
// others' height, and the row with the keyboard focus drawn with its neighbours wherever it is, so
// Tab and Shift+Tab always find the next row and a focused row is never taken away. The table says
// how many rows it holds (aria-rowcount, its header's row included) and each row its place
// (aria-rowindex), drawn or not. Laying out 2,000 rows at once took most of a second.

import { el, placeInOrder } from "./dom.js";

/** Tables of more rows than this draw those in view. */
export const WINDOWED_FROM = 200;
/** Rows drawn beyond either edge of the view. */
const OVERSCAN = 20;

/**
 * What a table draws: `count` rows in order, `rowAt(i)` building (or reusing) the i-th and `idAt(i)`
 * naming it, in `body` of the table in the scrolling `wrap` (whose head is `head`), `columns` wide.
 * @typedef {{ wrap: HTMLElement, head: HTMLElement, body: HTMLElement, count: number, columns: number, rowAt: (i: number) => HTMLElement, idAt: (i: number) => string }} Rows
 */

/**
 * The ranges of rows drawn: all of a short table's; else those in view with OVERSCAN either side,
 * and the focused row (`focusedId`) with its neighbours.
 * @param {Rows} rows @param {number} rowHeight @param {string | null} focusedId @returns {[number, number][]}
 */
function rangesOf({ wrap, head, count, idAt }, rowHeight, focusedId) {
  if (count <= WINDOWED_FROM) return [[0, count]];
  const first = Math.floor(Math.max(0, wrap.scrollTop - head.offsetHeight) / rowHeight);
  const inView = Math.ceil((wrap.clientHeight || innerHeight) / rowHeight);
  /** @type {[number, number][]} */
  const drawn = [[Math.max(0, first - OVERSCAN), Math.min(count, first + inView + OVERSCAN)]];
  let focused = -1;
  if (focusedId !== null) for (let i = 0; i < count && focused < 0; i++) if (idAt(i) === focusedId) focused = i;
  if (focused >= 0) drawn.push([Math.max(0, focused - 1), Math.min(count, focused + 2)]);
  drawn.sort((a, b) => a[0] - b[0]);
  const [one, two] = drawn;
  // Overlapping or touching: one range.
  return one && two && two[0] <= one[1] ? [[one[0], Math.max(one[1], two[1])]] : drawn;
}

/**
 * Draws a table's rows in view, and again as its scrolling wrap is scrolled (once a frame) or the
 * focus moves to a row (that row stays drawn). The wrap's own listeners, so a table drawn afresh
 * (another view) leaves none behind.
 */
export function createRowWindow() {
  /** The spacers standing for rows not drawn: above, between the view and the focused row, below. */
  const spacers = [0, 1, 2].map(() => el("tr", { class: "spacer", "aria-hidden": "true" }, [el("td")]));
  /** A drawn row's height (px), measured once rows are laid out; until then a one-line row's. */
  let rowHeight = 34;
  /** The row holding the keyboard focus. @type {string | null} */
  let focusedId = null;
  /** What place() drew last: drawn again when scrolled or focused. @type {Rows | null} */
  let last = null;
  let scrolled = false;

  /** @param {HTMLElement} wrap */
  function follow(wrap) {
    const windowed = () => last?.wrap === wrap && last.count > WINDOWED_FROM;
    wrap.addEventListener("scroll", () => {
      if (scrolled || !windowed()) return;
      scrolled = true;
      requestAnimationFrame(() => {
        scrolled = false;
        if (last && windowed()) place(last);
      });
    });
    wrap.addEventListener("focusin", (event) => {
      const id = /** @type {HTMLElement} */ (event.target).closest("tbody tr[data-id]")?.getAttribute("data-id") ?? null;
      if (id === focusedId) return;
      focusedId = id;
      if (id !== null && last && windowed()) place(last);
    });
    wrap.addEventListener("focusout", (event) => {
      const to = /** @type {Node | null} */ (event.relatedTarget);
      if (!to || !wrap.contains(to)) focusedId = null;
    });
  }

  /** Draws the rows in view (every row of a short table), spacers standing for the rest. @param {Rows} rows */
  function place(rows) {
    if (rows.wrap !== last?.wrap) follow(rows.wrap);
    last = rows;
    const { body, count, columns, rowAt } = rows;
    body.parentElement?.setAttribute("aria-rowcount", String(count + 1));
    const measured = count > WINDOWED_FROM && body.querySelector("tr[data-id]")?.getBoundingClientRect().height;
    if (measured) rowHeight = measured;
    /** @type {HTMLElement[]} */
    const nodes = [];
    let at = 0;
    let gap = 0;
    const skipTo = (/** @type {number} */ to) => {
      if (to <= at) return;
      const spacer = /** @type {HTMLElement} */ (spacers[gap++]);
      spacer.style.height = `${(to - at) * rowHeight}px`;
      /** @type {HTMLElement} */ (spacer.firstElementChild).setAttribute("colspan", String(columns));
      nodes.push(spacer);
    };
    for (const [from, to] of rangesOf(rows, rowHeight, focusedId)) {
      skipTo(from);
      for (let i = from; i < to; i++) {
        const node = rowAt(i);
        if (node.getAttribute("aria-rowindex") !== String(i + 2)) node.setAttribute("aria-rowindex", String(i + 2));
        nodes.push(node);
      }
      at = to;
    }
    skipTo(count);
    placeInOrder(body, nodes);
  }

  return { place };
}
