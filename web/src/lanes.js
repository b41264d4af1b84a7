// lanes.js — where allocation bars go on the timeline, as pure functions
// (no DOM), so that they are testable in node:
//  * by operator: a lane per top-level operator, lanes ordered by bytes,
//    overlapping lifetimes packed into a few rows inside each lane;
//  * which bars are at least one pixel wide, and how many narrower ones fall
//    into each pixel column (drawn as a shaded band, with the count stated);
//  * stacked: each live allocation a band stacked in allocation order, as in
//    MemoryViz's Active Memory Timeline but on a real time axis.

export const OTHER_LANE = "(other operators)";

// allocs: {n, ta, tf, size, group, groupBytes?, groupCount?} ; groups: labels of the group ids.
// Lanes are ordered by each group's bytes: groupBytes/groupCount (every
// allocation of the device, DATA.md allocs.group_bytes) when given, so that
// the lanes are the same whatever part of the allocations a window holds;
// else the allocations at hand.
// Returns {lanes:[{label, groups, bytes, count, rows, y}], lane: Uint16Array, row: Uint8Array, height}
export function layoutLanes(allocs, groups, { maxLanes = 24, maxRows = 4 } = {}) {
  const n = allocs.n;
  let bytes = new Float64Array(groups.length), count = new Uint32Array(groups.length);
  if (allocs.groupBytes && allocs.groupCount && allocs.groupBytes.length === groups.length) {
    bytes = Float64Array.from(allocs.groupBytes);
    count = Uint32Array.from(allocs.groupCount);
  } else for (let i = 0; i < n; i++) { bytes[allocs.group[i]] += allocs.size[i]; count[allocs.group[i]]++; }
  const order = [];
  for (let g = 0; g < groups.length; g++) if (count[g]) order.push(g);
  order.sort((a, b) => bytes[b] - bytes[a] || (groups[a] < groups[b] ? -1 : 1));
  const laneOfGroup = new Int32Array(groups.length).fill(-1);
  const lanes = [];
  order.forEach((g, k) => {
    if (k < maxLanes - 1 || order.length === maxLanes) {
      laneOfGroup[g] = lanes.length;
      lanes.push({ label: groups[g], groups: [g], bytes: bytes[g], count: count[g], rows: 1 });
    } else {
      if (lanes.length < maxLanes) lanes.push({ label: OTHER_LANE, groups: [], bytes: 0, count: 0, rows: 1 });
      const o = lanes[maxLanes - 1];
      laneOfGroup[g] = maxLanes - 1;
      o.groups.push(g); o.bytes += bytes[g]; o.count += count[g];
    }
  });
  // Rows: first row free at the allocation time, else the one freed soonest.
  const lane = new Uint32Array(n), row = new Uint8Array(n);
  const ends = lanes.map(() => []);
  for (let i = 0; i < n; i++) {
    const l = laneOfGroup[allocs.group[i]];
    lane[i] = l;
    const e = ends[l];
    let r = -1;
    for (let k = 0; k < e.length; k++) if (e[k] <= allocs.ta[i]) { r = k; break; }
    if (r < 0 && e.length < maxRows) { r = e.length; e.push(0); }
    if (r < 0) { r = 0; for (let k = 1; k < e.length; k++) if (e[k] < e[r]) r = k; }
    e[r] = Math.max(e[r], allocs.tf[i]);
    row[i] = r;
  }
  lanes.forEach((ln, k) => { ln.rows = Math.max(1, ends[k].length); });
  return { lanes, lane, row, laneOfGroup };
}

// Assigns y positions (px) to lanes: each row rowH tall, gap between lanes.
export function placeLanes(layout, rowH = 7, gap = 6, top = 4) {
  let y = top;
  for (const ln of layout.lanes) { ln.y = y; ln.h = ln.rows * rowH; y += ln.h + gap; }
  layout.rowH = rowH;
  layout.height = y;
  return layout;
}

// Bars visible in [t0, t1] on a width of W px: those >= 1 px wide (indices),
// and per lane and pixel column the count of narrower ones.  A windowed
// source counts the narrow ones itself (allocs.small: {x, group, n} per
// column and group, for this window and width): those counts are used, and
// every allocation it returned is a bar.
export function visibleBars(allocs, layout, t0, t1, W) {
  const n = allocs.n, k = W / Math.max(1e-9, t1 - t0);
  const nl = layout.lanes.length;
  const small = new Uint32Array(nl * W);
  const bars = [];
  let nSmall = 0;
  const counted = allocs.small && allocs.small.W === W && allocs.small.t0 === t0 && allocs.small.t1 === t1;
  for (let i = 0; i < n; i++) {
    const a = allocs.ta[i];
    if (a > t1) continue;
    const f = allocs.tf[i];
    if (f < t0) continue;
    const x0 = (a - t0) * k, x1 = (f - t0) * k;
    if (counted || x1 - x0 >= 1) { bars.push(i); continue; }
    const x = Math.min(W - 1, Math.max(0, Math.floor(x0)));
    small[layout.lane[i] * W + x]++;
    nSmall++;
  }
  if (counted) {
    const c = allocs.small;
    for (let j = 0; j < c.x.length; j++) {
      const lane = layout.laneOfGroup[c.group[j]];
      if (lane < 0 || c.x[j] >= W) continue;
      small[lane * W + c.x[j]] += c.n[j];
      nSmall += c.n[j];
    }
  }
  return { bars: Int32Array.from(bars), small, nSmall, W, k, t0 };
}

// The allocation under (x, y) px, or -1: the bar drawn last (on top) wins.
export function hitBar(allocs, layout, vis, x, y) {
  const t = vis.t0 + x / vis.k, slack = 1.5 / vis.k;
  for (let j = vis.bars.length - 1; j >= 0; j--) {
    const i = vis.bars[j];
    const ln = layout.lanes[layout.lane[i]];
    const y0 = ln.y + layout.row[i] * layout.rowH;
    if (y < y0 - 1 || y > y0 + layout.rowH) continue;
    if (t < allocs.ta[i] - slack || t > allocs.tf[i] + slack) continue;
    return i;
  }
  return -1;
}

// Allocations of the same lane live at time t (for the detail panel).
export function overlapping(allocs, layout, i, t) {
  const out = [];
  for (let j = 0; j < allocs.n; j++) {
    if (allocs.ta[j] > t) break; // sorted by allocation time
    if (layout.lane[j] === layout.lane[i] && allocs.tf[j] > t) out.push(j);
  }
  return out;
}

// Stacked mode.  For each pixel column the live set at one instant (its
// right edge, or at[x]: stack.js columnPeaks, when the memory curve is
// highest there), each allocation stacked on those allocated before it, all
// on base[x] bytes (the memory allocated before the trace).  Returns
// rectangles {x0, x1, lo, hi (bytes), i} for allocations at least minBytes
// tall, and per column the total live bytes of the allocations (smaller
// ones fill under the outline base + total).
export function stackedRects(allocs, t0, t1, W, minBytes, freeOrder, at = null, base = null) {
  const n = allocs.n;
  const fen = new Float64Array(n + 1);
  const add = (i, d) => { for (i++; i <= n; i += i & -i) fen[i] += d; };
  const below = (i) => { let s = 0; for (; i > 0; i -= i & -i) s += fen[i]; return s; };
  const total = new Float64Array(W);
  const rects = [];
  const big = [];              // live allocations >= minBytes, sorted by index
  const open = new Map();      // i -> {x0, lo}
  const added = new Uint8Array(n);
  let live = 0, hidden = 0;
  const insert = (i) => { let lo = 0, hi = big.length; while (lo < hi) { const m = (lo + hi) >> 1; if (big[m] < i) lo = m + 1; else hi = m; } big.splice(lo, 0, i); };
  const remove = (i) => { const k = big.indexOf(i); if (k >= 0) big.splice(k, 1); };
  const close = (i, x) => { const o = open.get(i); if (o && x > o.x0) rects.push({ x0: o.x0, x1: x, lo: o.lo, hi: o.lo + allocs.size[i], i }); open.delete(i); };
  let ai = 0, fi = 0;
  const dt = (t1 - t0) / W;
  for (let x = 0; x < W; x++) {
    const t = at ? at[x] : t0 + (x + 1) * dt;
    let changed = x === 0 || (base && base[x] !== base[x - 1]);
    for (; ai < n && allocs.ta[ai] <= t; ai++) {
      if (allocs.tf[ai] <= t) { // born and dead before this column's edge: not drawn
        if (allocs.ta[ai] > t0 && allocs.size[ai] >= minBytes) hidden++;
        continue;
      }
      add(ai, allocs.size[ai]); live += allocs.size[ai]; added[ai] = 1;
      if (allocs.size[ai] >= minBytes) insert(ai);
      changed = true;
    }
    for (; fi < n && allocs.tf[freeOrder[fi]] <= t; fi++) {
      const i = freeOrder[fi];
      if (!added[i]) continue;
      added[i] = 0;
      add(i, -allocs.size[i]); live -= allocs.size[i];
      if (allocs.size[i] >= minBytes) { remove(i); close(i, x); }
      changed = true;
    }
    total[x] = live;
    if (!changed) continue;
    for (const i of big) {
      const lo = below(i) + (base ? base[x] : 0);
      const o = open.get(i);
      if (o && o.lo === lo) continue;
      if (o) close(i, x);
      open.set(i, { x0: x, lo });
    }
  }
  for (const i of [...open.keys()]) close(i, W);
  return { rects, total, hidden };
}

// Stacked mode, drawn faithfully whatever the sizes: a raster of W columns
// and `rows` pixel rows (row 0 at the top = ymax bytes).  Each column stacks
// the live set at its instant (at[x], or its right edge) in allocation order
// on base[x] bytes; every allocation adds its colour to the rows it covers
// in proportion to the part of each row it covers, so that a pixel holding
// a hundred small allocations shows their mix, and its opacity the share of
// the pixel they fill.  colour(i): an index into palette ([[r, g, b]]).
// Returns {img (RGBA, row-major, W x rows), total (live bytes per column),
// rects ({x0, x1, lo, hi, i} for allocations at least minBytes tall, for
// picking), hidden (allocations born and freed between two column instants),
// drawn (allocations live at some column's instant)}.
export function stackRaster(allocs, t0, t1, W, rows, ymax, freeOrder, colour, palette, minBytes, at = null, base = null) {
  const n = allocs.n;
  const img = new Uint8ClampedArray(W * rows * 4);
  const acc = new Float32Array(rows * 4);
  const total = new Float64Array(W), rects = [];
  const live = [];                   // indices, ascending (allocation order = index order)
  const dead = new Uint8Array(n), added = new Uint8Array(n);
  const open = new Map();            // i -> {x0, lo} for allocations >= minBytes
  const close = (i, x) => { const o = open.get(i); if (o && x > o.x0) rects.push({ x0: o.x0, x1: x, lo: o.lo, hi: o.lo + allocs.size[i], i }); open.delete(i); };
  const scale = rows / Math.max(1, ymax);
  let ai = 0, fi = 0, liveBytes = 0, hidden = 0, drawn = 0;
  const dt = (t1 - t0) / W;
  for (let x = 0; x < W; x++) {
    const t = at ? at[x] : t0 + (x + 1) * dt;
    let changed = x === 0 || (base && base[x] !== base[x - 1]);
    for (; ai < n && allocs.ta[ai] <= t; ai++) {
      if (allocs.tf[ai] <= t) { if (allocs.ta[ai] > t0) hidden++; continue; } // born and freed before this column
      live.push(ai); added[ai] = 1; liveBytes += allocs.size[ai]; changed = true; drawn++;
    }
    for (; fi < n && allocs.tf[freeOrder[fi]] <= t; fi++) {
      const i = freeOrder[fi];
      if (!added[i] || dead[i]) continue;
      dead[i] = 1; liveBytes -= allocs.size[i]; changed = true;
      close(i, x);
    }
    total[x] = liveBytes;
    if (!changed) { // the same stack as the column before
      for (let r = 0; r < rows; r++) { const o = (r * W + x) * 4; img[o] = img[o - 4]; img[o + 1] = img[o - 3]; img[o + 2] = img[o - 2]; img[o + 3] = img[o - 1]; }
      continue;
    }
    acc.fill(0);
    let cum = base ? base[x] : 0, w = 0;
    for (let j = 0; j < live.length; j++) {
      const i = live[j];
      if (dead[i]) continue;
      live[w++] = i;                 // compact as we go
      const lo = cum, hi = cum + allocs.size[i];
      cum = hi;
      if (allocs.size[i] >= minBytes) {
        const o = open.get(i);
        if (!o || o.lo !== lo) { if (o) close(i, x); open.set(i, { x0: x, lo }); }
      }
      const yTop = rows - hi * scale, yBot = rows - lo * scale;
      if (yBot <= 0 || yTop >= rows) continue;
      const p = palette[colour(i)];
      for (let r = Math.max(0, Math.floor(yTop)); r < rows && r < yBot; r++) {
        const cover = Math.min(r + 1, yBot) - Math.max(r, yTop);
        if (cover <= 0) continue;
        const q = r * 4;
        acc[q] += p[0] * cover; acc[q + 1] += p[1] * cover; acc[q + 2] += p[2] * cover; acc[q + 3] += cover;
      }
    }
    live.length = w;
    for (let r = 0; r < rows; r++) {
      const q = r * 4, c = acc[q + 3], o = (r * W + x) * 4;
      if (c <= 0) { img[o + 3] = 0; continue; }
      img[o] = acc[q] / c; img[o + 1] = acc[q + 1] / c; img[o + 2] = acc[q + 2] / c; img[o + 3] = Math.min(1, c) * 255;
    }
  }
  for (const i of [...open.keys()]) close(i, W);
  return { img, total, rects, hidden, drawn };
}

// The allocation at byte offset b of column x's stack (for picking bands
// thinner than a pixel): the live set at instant t in allocation order on
// base bytes; -1 if none.
export function stackAt(allocs, t, base, b) {
  let cum = base;
  for (let i = 0; i < allocs.n && allocs.ta[i] <= t; i++) {
    if (allocs.tf[i] <= t) continue;
    if (b >= cum && b < cum + allocs.size[i]) return i;
    cum += allocs.size[i];
  }
  return -1;
}

// Indices sorted by free time (for stackedRects, stackRaster).
export function freeOrderOf(allocs) {
  const idx = new Uint32Array(allocs.n);
  for (let i = 0; i < allocs.n; i++) idx[i] = i;
  return idx.sort((a, b) => allocs.tf[a] - allocs.tf[b] || a - b);
}
