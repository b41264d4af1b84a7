// segmodel.js — the allocator's state through a CUDA allocator snapshot's
// trace, as PyTorch's MemoryViz replays it for "Allocator State History":
// from the final segments and blocks, walked back through the trace to the
// state before its first event, then forward to any event.  Pure (no DOM),
// tested in node.  Data: device.segview (web/DATA.md).
//
// A state: Map segment address -> {addr, size, stream, pool, blocks: Map
// addr -> {addr, size, state, stack}, ghosts: Map addr -> {addr, size}}.
// Block states: 0 allocated, 1 pending free (freed, waiting for its stream),
// ghosts: freed and not yet reused (MemoryViz draws them faded).

export const EV = { ALLOC: 0, FREE_REQ: 1, FREE: 2, SEG_ALLOC: 3, SEG_FREE: 4, MAP: 5, UNMAP: 6 };
export const EV_NAMES = ["alloc", "free requested", "free completed", "segment alloc", "segment free", "segment map", "segment unmap"];
const CHECKPOINT = 256;

function cloneState(s) {
  const out = new Map();
  for (const [a, g] of s) out.set(a, { ...g, blocks: new Map(g.blocks), ghosts: new Map(g.ghosts) });
  return out;
}

// The model: the union of every segment the trace shows (slots, stable
// positions), checkpoints of the state every CHECKPOINT events.
export function buildModel(sv) {
  const ev = sv.events, n = ev.k.length, streams = sv.streams || [];
  const final = new Map();
  for (const [addr, size, stream, pool, type, expandable, blocks] of sv.segments) {
    const g = { addr, size, stream, pool, type, expandable: !!expandable, blocks: new Map(), ghosts: new Map() };
    for (const [ba, bs, st, stack] of blocks) if (st === 0 || st === 1) g.blocks.set(ba, { addr: ba, size: bs, state: st, stack });
    final.set(addr, g);
  }
  // slots: every segment ever seen (by address; the largest size seen)
  const slots = new Map();
  const slot = (addr, size, stream, pool) => {
    const s = slots.get(addr);
    if (!s) slots.set(addr, { addr, size, stream: stream ?? "", pool: pool ?? "" });
    else { if (size > s.size) s.size = size; if (pool && !s.pool) s.pool = pool; }
  };
  for (const g of final.values()) slot(g.addr, g.size, g.stream, g.pool);
  for (let i = 0; i < n; i++) if (ev.k[i] >= EV.SEG_ALLOC) slot(ev.a[i], ev.s[i], streams[ev.str[i]] ?? "", "");
  const order = [...slots.values()].sort((x, y) => (x.stream < y.stream ? -1 : x.stream > y.stream ? 1 : x.addr - y.addr));
  const addrs = order.map((s) => s.addr).sort((x, y) => x - y);
  // the live segment of state st holding an address (segments come and go at
  // overlapping addresses: the slots before it, back as far as the largest one reaches)
  const maxSize = order.reduce((x, s) => Math.max(x, s.size), 0);
  const segOf = (a, st) => {
    let lo = 0, hi = addrs.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (addrs[m] <= a) lo = m + 1; else hi = m; }
    for (let j = lo - 1; j >= 0 && addrs[j] + maxSize > a; j--) {
      const g = st.get(addrs[j]);
      if (g && a < g.addr + g.size) return g.addr;
    }
    return null;
  };
  // frees that follow a free request of the same block: pending until completed
  const pendingBefore = new Uint8Array(n), requested = new Set();
  for (let i = 0; i < n; i++) {
    if (ev.k[i] === EV.FREE_REQ) requested.add(ev.a[i]);
    else if (ev.k[i] === EV.FREE) { if (requested.delete(ev.a[i])) pendingBefore[i] = 1; }
  }
  const model = { n, ev, streams, slots: order, segOf, pendingBefore, settings: sv.settings || "" };
  // back from the final state to the state before event 0
  const s = cloneState(final);
  const get = (a) => { const g = segOf(a, s); return g == null ? null : s.get(g) || null; };
  for (let i = n - 1; i >= 0; i--) {
    const k = ev.k[i], a = ev.a[i], sz = ev.s[i];
    if (k === EV.ALLOC) { const g = get(a); if (g) g.blocks.delete(a); }
    else if (k === EV.FREE_REQ) { const g = get(a); const b = g && g.blocks.get(a); if (b) b.state = 0; }
    else if (k === EV.FREE) { const g = get(a); if (g) g.blocks.set(a, { addr: a, size: sz, state: pendingBefore[i] ? 1 : 0, stack: ev.st[i] }); }
    else if (k === EV.SEG_ALLOC || k === EV.MAP) s.delete(a);
    else if (k === EV.SEG_FREE || k === EV.UNMAP) {
      const sl = slots.get(a);
      s.set(a, { addr: a, size: sz, stream: sl ? sl.stream : "", pool: sl ? sl.pool : "", blocks: new Map(), ghosts: new Map() });
    }
  }
  model.checkpoints = [cloneState(s)];
  let cur = s;
  for (let i = 0; i < n; i++) {
    apply(model, cur, i);
    if ((i + 1) % CHECKPOINT === 0) model.checkpoints.push(cloneState(cur));
  }
  return model;
}

// Applies event i to state s (forward).
export function apply(model, s, i) {
  const ev = model.ev, k = ev.k[i], a = ev.a[i], sz = ev.s[i];
  const gAddr = k >= EV.SEG_ALLOC ? a : model.segOf(a, s);
  let g = gAddr == null ? null : s.get(gAddr);
  if (k === EV.ALLOC) {
    if (!g) return;
    g.blocks.set(a, { addr: a, size: sz, state: 0, stack: ev.st[i] });
    for (const [ga, gh] of g.ghosts) if (ga < a + sz && a < ga + gh.size) g.ghosts.delete(ga); // reused
  } else if (k === EV.FREE_REQ) {
    const b = g && g.blocks.get(a);
    if (b) b.state = 1;
  } else if (k === EV.FREE) {
    if (!g) return;
    const b = g.blocks.get(a);
    g.blocks.delete(a);
    g.ghosts.set(a, { addr: a, size: b ? b.size : sz, stack: b ? b.stack : ev.st[i], freedAt: i });
  } else if (k === EV.SEG_ALLOC || k === EV.MAP) {
    const sl = model.slots.find((x) => x.addr === a);
    s.set(a, { addr: a, size: sz, stream: sl ? sl.stream : "", pool: sl ? sl.pool : "", blocks: new Map(), ghosts: new Map() });
  } else if (k === EV.SEG_FREE || k === EV.UNMAP) {
    s.delete(a);
  }
}

// The state after the first k events (0: before the trace's first event; n: the end).
export function stateAt(model, k) {
  k = Math.max(0, Math.min(model.n, k));
  const c = Math.floor(k / CHECKPOINT);
  const s = cloneState(model.checkpoints[Math.min(c, model.checkpoints.length - 1)]);
  for (let i = c * CHECKPOINT; i < k; i++) apply(model, s, i);
  return s;
}

// Figures of a state: reserved, allocated, pending, free bytes, holes, the
// largest hole, fragmentation (1 - largest hole / free).
export function stateStats(s) {
  let reserved = 0, allocated = 0, pending = 0, holes = 0, largest = 0, segments = 0;
  for (const g of s.values()) {
    segments++;
    reserved += g.size;
    const bl = [...g.blocks.values()].sort((x, y) => x.addr - y.addr);
    let at = g.addr;
    for (const b of bl) {
      if (b.state === 0) allocated += b.size; else pending += b.size;
      if (b.addr > at) { holes++; largest = Math.max(largest, b.addr - at); }
      at = Math.max(at, b.addr + b.size);
    }
    if (g.addr + g.size > at) { holes++; largest = Math.max(largest, g.addr + g.size - at); }
  }
  const free = reserved - allocated - pending;
  return { segments, reserved, allocated, pending, free, holes, largest, fragmentation: free > 0 ? 1 - largest / free : 0 };
}

// Each slot's lifetimes as event intervals [from, to) (to = n: alive at the end),
// for the segment timeline.
export function segmentLives(model) {
  const lives = new Map(model.slots.map((s) => [s.addr, []]));
  // address -> [the state it was reserved from, its size then]: a slot's size
  // is the largest segment ever at its address, not the one open now
  const first = model.checkpoints[0], open = new Map();
  for (const [a, g] of first) open.set(a, [0, g.size]);
  const ev = model.ev;
  for (let i = 0; i < model.n; i++) {
    const k = ev.k[i], a = ev.a[i];
    if ((k === EV.SEG_ALLOC || k === EV.MAP) && !open.has(a)) open.set(a, [i + 1, ev.s[i]]);
    else if ((k === EV.SEG_FREE || k === EV.UNMAP) && open.has(a)) {
      lives.get(a).push([open.get(a)[0], i + 1, ev.s[i]]);
      open.delete(a);
    }
  }
  for (const [a, [from, size]] of open) lives.get(a).push([from, model.n + 1, size]);
  return lives;
}

// A Python literal as repr() writes it (the allocator settings dict) -> JS
// values (dicts as [[key, value]] lists, to keep their order); null if it
// cannot be read.
export function parsePyRepr(text) {
  let i = 0;
  const ws = () => { while (i < text.length && /\s/.test(text[i])) i++; };
  const value = () => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++; const out = [];
      ws(); if (text[i] === "}") { i++; return { dict: out }; }
      for (;;) {
        const k = value(); ws(); if (text[i++] !== ":") throw new Error("':' expected");
        const v = value(); out.push([k, v]); ws();
        if (text[i] === ",") { i++; ws(); if (text[i] === "}") { i++; break; } continue; }
        if (text[i++] === "}") break; throw new Error("'}' expected");
      }
      return { dict: out };
    }
    if (c === "[" || c === "(") {
      const close = c === "[" ? "]" : ")"; i++; const out = [];
      ws(); if (text[i] === close) { i++; return out; }
      for (;;) { out.push(value()); ws(); if (text[i] === ",") { i++; ws(); if (text[i] === close) { i++; break; } continue; } if (text[i++] === close) break; throw new Error("end expected"); }
      return out;
    }
    if (c === "'" || c === '"') {
      i++; let s = "";
      while (i < text.length && text[i] !== c) { if (text[i] === "\\") { i++; s += text[i] === "n" ? "\n" : text[i]; } else s += text[i]; i++; }
      i++; return s;
    }
    const m = /^(True|False|None|-?[\d.]+(?:e[-+]?\d+)?|inf|-inf|nan)/.exec(text.slice(i));
    if (!m) throw new Error("value expected at " + i);
    i += m[0].length;
    return m[0] === "True" ? true : m[0] === "False" ? false : m[0] === "None" ? null : /^-?[\d.]/.test(m[0]) ? Number(m[0]) : m[0];
  };
  try { const v = value(); return v; } catch { return null; }
}

// Per event k (0..n: the state after k events), as MemoryViz's "Active Memory
// Timeline" and "Allocated Memory (incl. Private Pools)": the bytes of active
// blocks (allocated or pending free), and the same with each private pool's
// segments (CUDA graphs: a pool other than (0, 0)) counted whole, since the
// graph keeps them.  {active, withPrivate} Float64Arrays of n + 1.
export function allocatedSeries(model, isPrivate) {
  const s = cloneState(model.checkpoints[0]), n = model.n, ev = model.ev;
  const priv = (g) => !!g && isPrivate(g.pool);
  let active = 0, privBlocks = 0, privSegs = 0;
  for (const g of s.values()) {
    for (const b of g.blocks.values()) { active += b.size; if (priv(g)) privBlocks += b.size; }
    if (priv(g)) privSegs += g.size;
  }
  const A = new Float64Array(n + 1), P = new Float64Array(n + 1);
  A[0] = active; P[0] = active - privBlocks + privSegs;
  for (let i = 0; i < n; i++) {
    const k = ev.k[i], a = ev.a[i];
    const gAddr = k >= EV.SEG_ALLOC ? a : model.segOf(a, s), g = gAddr == null ? null : s.get(gAddr);
    if (k === EV.ALLOC && g) { active += ev.s[i]; if (priv(g)) privBlocks += ev.s[i]; }
    else if (k === EV.FREE && g) { const b = g.blocks.get(a), sz = b ? b.size : ev.s[i]; active -= sz; if (priv(g)) privBlocks -= sz; }
    else if ((k === EV.SEG_FREE || k === EV.UNMAP) && priv(g)) privSegs -= g.size;
    apply(model, s, i);
    if (k === EV.SEG_ALLOC || k === EV.MAP) { const h = s.get(a); if (priv(h)) privSegs += h.size; }
    A[i + 1] = active; P[i + 1] = active - privBlocks + privSegs;
  }
  return { active: A, withPrivate: P };
}

// ---- the segment timeline's columns (segments.js drawTimeline) ----

// The state each of `cols` columns shows (k: events applied, 0..n): on a time
// axis [T0, T1] (the events' times t, sorted), the state at the column's end;
// without times (T1 <= T0), the events spread evenly.  Uint32Array(cols).
export function stateColumns(t, n, T0, T1, cols) {
  const out = new Uint32Array(cols);
  if (!(T1 > T0)) { for (let c = 0; c < cols; c++) out[c] = Math.min(n, Math.floor((c / cols) * (n + 1))); return out; }
  let k = 0;
  for (let c = 0; c < cols; c++) {
    const end = c === cols - 1 ? T1 : T0 + ((c + 1) * (T1 - T0)) / cols;
    while (k < n && t[k] <= end) k++;
    out[c] = k;
  }
  return out;
}

// The bytes the segments reserve in each state 0..n, from their lives
// ([from, to, size]: reserved in states from .. to-1; segmentLives).
export function reservedByState(lives, n) {
  const d = new Float64Array(n + 2);
  for (const ls of lives.values()) for (const [f, t, size] of ls) { d[Math.min(f, n + 1)] += size; d[Math.min(t, n + 1)] -= size; }
  const out = new Float64Array(n + 1);
  let r = 0;
  for (let k = 0; k <= n; k++) { r += d[k]; out[k] = r; }
  return out;
}

// The segments stacked per column, as pixels: order (slots, bottom first),
// lives, kcol (stateColumns), a raster cols x rows with ymax bytes at its
// top, colour(j) -> 0xAABBGGRR (ImageData's byte order read as a little-endian
// Uint32).  Each segment is walked over the columns of its lives only (the
// columns' states rise with them: a life is one run of columns).
export function bandRaster(order, lives, kcol, rows, ymax, colour) {
  const cols = kcol.length, px = new Uint32Array(cols * rows), cum = new Float64Array(cols);
  const firstCol = (k) => { let lo = 0, hi = cols; while (lo < hi) { const m = (lo + hi) >> 1; if (kcol[m] < k) lo = m + 1; else hi = m; } return lo; };
  const yOf = (b) => rows - Math.round((b / ymax) * rows);
  order.forEach((s, j) => {
    const c32 = colour(j, s);
    for (const [f, t, size] of lives.get(s.addr) || []) {
      for (let c = firstCol(f), end = firstCol(t); c < end; c++) {
        const ya = Math.max(0, yOf(cum[c] + size)), yb = Math.min(rows, yOf(cum[c]));
        for (let y = ya; y < Math.max(yb, ya + 1) && y < rows; y++) px[y * cols + c] = c32;
        cum[c] += size;
      }
    }
  });
  return px;
}
