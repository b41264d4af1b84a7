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

// The lanes' scroll, in whole lanes: the scroll offset scrollTop moves to the
// start of the first lane at or below it (so the view never opens on half a
// lane), and the lanes shown are those wholly inside viewH px from there (the
// last one never half hidden under the time axis).  Lanes' bands reach 2 px
// above and below them (placeLanes' gap).  {sy: the offset the lanes are
// drawn at, shown: [indices]}.
export function laneWindow(lanes, scrollTop, viewH) {
  if (!lanes.length) return { sy: 0, shown: [] };
  const y0 = lanes[0].y, last = lanes[lanes.length - 1], end = last.y + last.h + 2;
  let lo = 0, hi = lanes.length - 1; // the first lane at or below scrollTop
  while (lo < hi) { const m = (lo + hi) >> 1; if (lanes[m].y - y0 < scrollTop - 0.5) lo = m + 1; else hi = m; }
  let k = lo;
  while (k > 0 && end - (lanes[k - 1].y - y0) <= viewH) k--; // not past the lanes that fill the view to the end
  const sy = lanes[k].y - y0, shown = [];
  for (let j = k; j < lanes.length && lanes[j].y + lanes[j].h + 2 - sy <= viewH; j++) shown.push(j);
  if (!shown.length) shown.push(k); // a lane taller than the view: shown, cut
  return { sy, shown };
}

// The height of the lanes' viewport: all of them when they fit, else maxH.
export function viewHeight(contentH, maxH) { return Math.min(contentH, maxH); }
