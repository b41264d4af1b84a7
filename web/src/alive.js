// alive.js — what was alive at an instant on the allocation timeline (its
// hover), and the lanes' vertical window (the timeline scrolls its lanes and
// draws only those in view).  Pure functions, tested in node.

// The allocations live at time t (allocated at or before t, not yet freed):
// their count and bytes, and the `top` largest, largest first (indices).
// allocs are sorted by allocation time.
export function aliveAt(allocs, t, top = 10) {
  let count = 0, bytes = 0;
  const best = []; // ascending by size, at most `top`
  for (let i = 0; i < allocs.n && allocs.ta[i] <= t; i++) {
    if (allocs.tf[i] <= t && !(allocs.flags && allocs.flags[i] & 2)) continue;
    count++; bytes += allocs.size[i];
    const s = allocs.size[i];
    if (best.length < top) { insertBySize(best, i, allocs.size); continue; }
    if (s > allocs.size[best[0]]) { best.shift(); insertBySize(best, i, allocs.size); }
  }
  return { t, count, bytes, top: best.reverse() };
}

function insertBySize(arr, i, size) {
  let lo = 0, hi = arr.length;
  while (lo < hi) { const m = (lo + hi) >> 1; if (size[arr[m]] < size[i]) lo = m + 1; else hi = m; }
  arr.splice(lo, 0, i);
}

// The lanes (indices) at least partly inside [y0, y1) px of the lanes' content.
export function lanesInView(lanes, y0, y1) {
  let lo = 0, hi = lanes.length;
  while (lo < hi) { const m = (lo + hi) >> 1; if (lanes[m].y + lanes[m].h + 2 < y0) lo = m + 1; else hi = m; }
  const out = [];
  for (let k = lo; k < lanes.length && lanes[k].y - 2 < y1; k++) out.push(k);
  return out;
}

// The height of the lanes' viewport: all of them when they fit, else maxH.
export function viewHeight(contentH, maxH) { return Math.min(contentH, maxH); }
