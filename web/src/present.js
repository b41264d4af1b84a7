// present.js — small presentation rules of the memory views, pure (no DOM)
// so that node tests them: curve colours that stay apart, legend swatches
// that show a series' dash, whether the served allocations fit the window
// drawn, which input notes change what the numbers mean.

import { escapeHtml, plural, LANE_COLOURS } from "./format.js";

// Curve colours: the lanes' (format.js), distinct hues first: no two of the first eight alike.
export const CURVE_COLOURS = LANE_COLOURS;
// The total beside the per-operator curves: neutral, no operator's colour.
export const TOTAL_COLOUR = "#7F7F7F";

// The CSS border style of a legend swatch for a uPlot dash pattern.
export function markerDash(dash) {
  if (!dash || !dash.length) return "solid";
  return Math.max(...dash) <= 2 ? "dotted" : "dashed";
}

// Whether allocations a windowed source returned were counted for this
// window and width (else they must be fetched again before drawing:
// visibleBars trusts the server's narrow counts only for their own window).
export function allocsFit(a, t0, t1, W) {
  const f = a && a.fetched;
  return !f || (f.t0 === t0 && f.t1 === t1 && f.W === W);
}

// Rows inside each lane for the bars of one window (indices, in allocation
// order), as lanes.js layoutLanes packs them: the first row free at the
// allocation time, else the one freed soonest.  A served window holds only
// its bars, so packing the report's bars the same way gives both the same
// rows, lane heights and lanes in view.  Sets layout.row and each lane's rows.
export function packRows(allocs, layout, bars, maxRows) {
  const ends = layout.lanes.map(() => []);
  layout.row.fill(0);
  for (const i of bars) {
    const e = ends[layout.lane[i]];
    if (!e) continue;
    let r = -1;
    for (let k = 0; k < e.length; k++) if (e[k] <= allocs.ta[i]) { r = k; break; }
    if (r < 0 && e.length < maxRows) { r = e.length; e.push(0); }
    if (r < 0) { r = 0; for (let k = 1; k < e.length; k++) if (e[k] < e[r]) r = k; }
    e[r] = Math.max(e[r], allocs.tf[i]);
    layout.row[i] = r;
  }
  layout.lanes.forEach((ln, k) => { ln.rows = Math.max(1, ends[k].length); });
  return layout;
}

// Input notes that change what the numbers mean (frees that cannot be
// matched, data cut short, events skipped or ignored, times that are entry
// numbers): shown open; the rest stay folded in a list.
const IMPORTANT = /cannot be matched|not matched|unmatched|not recorded|closing brackets|\bcut\b|truncat|stopped early|skipped|ignored|dropped|left out|missing|impossible|never allocated|frees more|entry numbers|no addresses|carry no|no rows|lost|overflow/i;
export function importantNote(text) { return IMPORTANT.test(String(text)); }

// The notes about an input as HTML: the important ones open, the others under a summary.
export function notesHtml(notes) {
  const imp = notes.filter(importantNote), minor = notes.filter((n) => !importantNote(n));
  const div = (n) => "<div>" + escapeHtml(n) + "</div>";
  return (imp.length ? `<div class="notes-important" role="note">${imp.map((n) => '<div class="note-imp">' + escapeHtml(n) + "</div>").join("")}</div>` : "") +
    (minor.length ? `<details><summary>${plural(minor.length, imp.length ? "other note" : "note")} about this input</summary>${minor.map(div).join("")}</details>` : "");
}

// The table's only row when nothing is left to show: the filters kept none
// (of `all` rows), or there are none at all.
export function noRowsHtml(ncols, what, all) {
  const msg = all ? `No ${what}s match the filters: clear the text, the sizes, the category or the zoomed-window box.` : `No ${what}s on this device.`;
  return `<tr class="no-rows"><td colspan="${ncols}">${escapeHtml(msg)}</td></tr>`;
}

// The filter fields' answer to a size that is not one.
export const NOT_A_SIZE = "not a size: write e.g. 512, 512k, 64 KiB, 1.5 MiB or 2G";
