// stack.js — stacked pictures, exact at every zoom, as pure functions:
//  * the category chart: each category's band top (the sum of it and the
//    categories below it) gets its own M4 pyramid; a window draws the union
//    of every top's M4 points (m4Compact: per column the first and last
//    point and each top's min and max), so every band edge keeps each
//    column's extremes (the peak of the total included);
//  * the stacked timeline's columns: when the memory curve is highest in
//    each pixel column (so that the stacked outline is the curve), and the
//    part of it allocated before the trace (curve minus the live bytes of the
//    trace's allocations), drawn as the base band.
// The server does the same in C (src/server/api.c: catcurve, stackbase).

import { m4Select, m4Build, m4Compact, edgeTimes, edgeValues } from "./m4.js";
import { upperBound } from "./decode.js";

// parts: [{cat, t, v}] bottom first, all on the same times.
export function categoryStack(parts) {
  const tops = [];
  let below = null;
  for (const p of parts) {
    const v = new Float64Array(p.v.length);
    for (let i = 0; i < v.length; i++) v[i] = p.v[i] + (below ? below[i] : 0);
    tops.push({ t: p.t, v, n: v.length, ...m4Build(v) });
    below = v;
  }
  return { cats: parts.map((p) => p.cat), tops };
}

// The window [t0, t1) at px columns: {t, tops: [Float64Array], cats, max}.
export function selectStack(stack, t0, t1, px) {
  const { tops } = stack;
  if (!tops.length) return { t: new Float64Array(0), tops: [], cats: [], max: 0 };
  // the union of every top's picks: numeric typed-array sort, then unique
  const picks = tops.map((c) => m4Select(c, t0, t1, px).idx);
  const idx = new Uint32Array(picks.reduce((n, p) => n + p.length, 0));
  let k = 0;
  for (const p of picks) { idx.set(p, k); k += p.length; }
  idx.sort();
  const all = [];
  for (const i of idx) if (!all.length || all[all.length - 1] !== i) all.push(i);
  const u = m4Compact(tops[0].t, tops.map((c) => c.v), all, t0, t1, px);
  const { t, close } = edgeTimes(tops[0].t, u, t0, t1);
  const out = tops.map((c) => edgeValues(c.v, u, close));
  const top = m4Select(tops[tops.length - 1], t0, t1, 1);
  let max = 0;
  for (const x of top.v) if (x > max) max = x;
  return { t, tops: out, cats: stack.cats, max };
}

// Per pixel column of [t0, t1): the instant the curve is highest in it and
// that value.  sel: the curve's M4 points for the same window and px.  The
// value in force at a column's start counts (at its first whole ns) unless
// a point lies exactly there.
export function columnPeaks(sel, t0, t1, px) {
  const T = new Float64Array(px), V = new Float64Array(px), dt = (t1 - t0) / px;
  let j = 0, cur = 0;
  for (let x = 0; x < px; x++) {
    const cs = t0 + x * dt, ce = t0 + (x + 1) * dt;
    while (j < sel.t.length && sel.t[j] < cs) cur = sel.v[j++];
    const bt0 = Math.ceil(cs);
    let best = j < sel.t.length && sel.t[j] === bt0 ? -Infinity : cur, bt = bt0;
    for (; j < sel.t.length && sel.t[j] < ce; j++) {
      cur = sel.v[j];
      if (cur > best) { best = cur; bt = sel.t[j]; }
    }
    T[x] = bt; V[x] = best;
  }
  return { t: T, v: V };
}

// {t, v, base} for the stacked timeline: columnPeaks of the curve, and at
// each of those instants the curve minus the trace's live bytes (tracked:
// the full "live allocations seen in the trace" curve {t, v}), when the
// curve is recorded totals (beforeKnown); else base 0.
export function stackBase(sel, tracked, beforeKnown, t0, t1, px) {
  const { t, v } = columnPeaks(sel, t0, t1, px);
  const base = new Float64Array(px);
  if (beforeKnown && tracked) {
    for (let x = 0; x < px; x++) {
      const k = upperBound(tracked.t, t[x]);
      const live = k ? tracked.v[k - 1] : 0;
      base[x] = Math.max(0, v[x] - live);
    }
  }
  return { t, v, base, beforeKnown: !!(beforeKnown && tracked) };
}
