// @ts-check
// Labels as coloured chips: the label's own colour behind its name, with black or white text,
// whichever reads better on it. The colour is set through the CSSOM (the page's CSP allows no
// inline style attributes), and only when it is the #rrggbb the API promises.

import { el } from "../lib/dom.js";

const COLOUR = /^#[0-9a-f]{6}$/i;

/** The relative luminance of #rrggbb (WCAG 2). @param {string} colour */
function luminance(colour) {
  const [r, g, b] = [1, 3, 5].map((at) => {
    const channel = parseInt(colour.slice(at, at + 2), 16) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** Black or white text, whichever contrasts more with the colour. @param {string} colour */
export function textColourOn(colour) {
  const l = luminance(colour);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? "#000000" : "#ffffff";
}

/** @param {import("../lib/store.js").Record} label */
export function labelChip(label) {
  // A long name is cut short on a narrow card; the whole name is its tooltip.
  const chip = el("span", { class: "label-chip", title: label.name }, [label.name]);
  if (COLOUR.test(label.colour ?? "")) {
    chip.style.backgroundColor = label.colour;
    chip.style.color = textColourOn(label.colour);
  }
  return chip;
}

/**
 * The chips of a task's labels, in the order the task names them (labels not yet known are left out).
 * @param {string[]} labelIds @param {Map<string, import("../lib/store.js").Record>} labels
 */
export function labelChips(labelIds, labels) {
  const known = (labelIds ?? []).map((id) => labels.get(id)).filter((label) => label !== undefined);
  return known.length
    ? el(
        "ul",
        { class: "labels", "aria-label": "Labels" },
        known.map((label) => el("li", {}, [labelChip(label)])),
      )
    : null;
}
