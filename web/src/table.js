// table.js — the allocations and operators tables as pure functions:
// filter, sort, page, and export as TSV (clipboard) or CSV (download).

import { BEFORE_TRACE } from "./format.js";

// allocs: decoded columns + groups/strings; q: {text, minSize, maxSize, cat, t0, t1, inWindow}
// (cat: a category code, src/analysis/categories.h; -1 or absent = all)
export function filterAllocs(allocs, q) {
  const n = allocs.n, out = [];
  const text = (q.text || "").trim().toLowerCase();
  let groupOk = null, opOk = null;
  if (text) {
    groupOk = allocs.groups.map((g) => g.toLowerCase().includes(text));
    opOk = allocs.strings.map((s) => s.toLowerCase().includes(text));
  }
  const lo = q.minSize ?? -Infinity, hi = q.maxSize ?? Infinity;
  for (let i = 0; i < n; i++) {
    const s = allocs.size[i];
    if (s < lo || s > hi) continue;
    if (q.inWindow && (allocs.ta[i] > q.t1 || allocs.tf[i] < q.t0)) continue;
    if (text && !groupOk[allocs.group[i]] && !opOk[allocs.op[i]]) continue;
    if (q.cat != null && q.cat >= 0 && allocs.cat[i] !== q.cat) continue;
    out.push(i);
  }
  return Uint32Array.from(out);
}

export const ALLOC_COLUMNS = [
  { key: "group", title: "operator" },
  { key: "op", title: "allocating op" },
  { key: "size", title: "size", num: true },
  { key: "ta", title: "allocated", num: true },
  { key: "tf", title: "released", num: true },
  { key: "dur", title: "duration", num: true },
  // Ascend (MindStudio Insight's columns): allocs.tr and allocs.totals
  { key: "tr", title: "active released", num: true, ascend: true },
  { key: "adur", title: "active duration", num: true, ascend: true },
  { key: "aA", title: "alloc: total allocated", num: true, ascend: true, total: ["allocated", "ta"] },
  { key: "aR", title: "alloc: total reserved", num: true, ascend: true, total: ["reserved", "ta"] },
  { key: "aC", title: "alloc: total active", num: true, ascend: true, total: ["active", "ta"] },
  { key: "rA", title: "release: total allocated", num: true, ascend: true, total: ["allocated", "tf"] },
  { key: "rR", title: "release: total reserved", num: true, ascend: true, total: ["reserved", "tf"] },
  { key: "rC", title: "release: total active", num: true, ascend: true, total: ["active", "tf"] },
  { key: "cat", title: "category" },
  { key: "stream", title: "stream" },
  { key: "addr", title: "address" },
  { key: "reason", title: "why this category" },
];

// Category name and reason text of allocation i ("" when the data has none).
export function categoryOf(allocs, i) { return shownBeforeTrace(allocs, i) ? BEFORE_TRACE : ((allocs.categories || [])[allocs.cat[i]] || {}).name || ""; }

// An allocation known only to predate the trace (allocated before it, alive to
// its end, PARAMETER_OR_STATE for that alone): the page calls it, as the memory
// no allocation accounts for, "(allocated before trace)" everywhere
// (src/analysis/beforetrace.h).
export function shownBeforeTrace(allocs, i) {
  return !!allocs.flags && (allocs.flags[i] & 3) === 3 && ((allocs.categories || [])[allocs.cat[i]] || {}).name === "PARAMETER_OR_STATE";
}
export function reasonOf(allocs, i) { return allocs.reason ? (allocs.reasons || [])[allocs.reason[i]] || "" : ""; }

// A category's position in the display order (category_order), as the server sorts.
function catRank(allocs) {
  const order = allocs.categoryOrder || [];
  const r = new Uint32Array(256).fill(order.length);
  order.forEach((c, k) => { r[c] = k; });
  return r;
}

export function allocValue(allocs, i, key) {
  switch (key) {
    case "group": return allocs.groups[allocs.group[i]];
    case "op": return allocs.strings[allocs.op[i]];
    case "stream": return allocs.strings[allocs.stream[i]];
    case "dur": return allocs.tf[i] - allocs.ta[i];
    case "adur": return allocs.tr ? allocs.tr[i] - allocs.ta[i] : null;
    case "aA": case "aR": case "aC": case "rA": case "rR": case "rC": {
      if (allocs.tot) { const v = allocs.tot[key] ? allocs.tot[key][i] : -1; return v < 0 ? null : v; } // served: the server's
      const c = ALLOC_COLUMNS.find((x) => x.key === key).total;
      return totalAt(allocs, c[0], c[1], i);
    }
    case "addr": return allocs.addrHi[i] * 4294967296 + allocs.addrLo[i];
    case "cat": return categoryOf(allocs, i);
    case "reason": return reasonOf(allocs, i);
    default: return allocs[key][i];
  }
}

// The device's total of a kind (allocated, reserved, active) at allocation i's
// allocation ("ta") or release ("tf") time, after the events at that time; null when
// unknown (no such curve, or a release outside the trace).
export function totalAt(allocs, kind, when, i) {
  const T = allocs.totals;
  if (!T) return null;
  const comp = T.comp && T.comp[/^cann::/.test(allocs.strings[allocs.op[i]] || "") ? "GE" : "PTA"];
  const c = (comp && comp[kind]) || T[kind];
  if (!c) return null;
  if (when === "tf" && allocs.flags[i] & 2) return null;
  const t = allocs[when][i];
  let lo = 0, hi = c.t.length;
  while (lo < hi) { const m = (lo + hi) >> 1; if (c.t[m] <= t) lo = m + 1; else hi = m; }
  return lo ? c.v[lo - 1] : null;
}

export function sortAllocs(allocs, idx, key, dir = 1) {
  const a = Uint32Array.from(idx);
  if (!key) return a;
  // Sort on numbers: strings are replaced by their rank in sorted order.
  let val;
  if (key === "cat") { const r = catRank(allocs); val = (i) => r[allocs.cat[i]]; }
  else if (key === "reason") {
    const texts = allocs.reasons || [], codes = allocs.reason;
    const order = texts.map((s, k) => k).sort((x, y) => (texts[x] < texts[y] ? -1 : texts[x] > texts[y] ? 1 : 0));
    const rank = new Uint32Array(Math.max(1, texts.length));
    order.forEach((k, r) => { rank[k] = r; });
    val = (i) => (codes ? rank[codes[i]] : 0);
  } else if (key === "group" || key === "op" || key === "stream") {
    const names = key === "group" ? allocs.groups : allocs.strings;
    const codes = key === "group" ? allocs.group : allocs[key];
    const order = names.map((s, k) => k).sort((x, y) => names[x].localeCompare(names[y]));
    const rank = new Uint32Array(names.length);
    order.forEach((k, r) => { rank[k] = r; });
    val = (i) => rank[codes[i]];
  } else val = (i) => allocValue(allocs, i, key);
  const v = new Float64Array(allocs.n);
  for (const i of a) v[i] = val(i);
  // ties by index, reversed with the order: as the server (a stable ascending sort read backwards)
  return a.sort((x, y) => ((v[x] - v[y]) || (x - y)) * dir);
}

export function pageOf(idx, page, size) {
  const pages = Math.max(1, Math.ceil(idx.length / size));
  const p = Math.min(Math.max(0, page), pages - 1);
  return { rows: idx.subarray(p * size, Math.min(idx.length, (p + 1) * size)), page: p, pages };
}

// Generic row tables (operators): rows are arrays; filter on column 0.
export function filterRows(rows, text) {
  const t = (text || "").trim().toLowerCase();
  return t ? rows.filter((r) => String(r[0]).toLowerCase().includes(t)) : rows.slice();
}

export function sortRows(rows, col, dir = 1) {
  return rows.slice().sort((a, b) => {
    const u = a[col] ?? -1, v = b[col] ?? -1; // null (unknown, e.g. calls) before 0
    const c = typeof u === "string" ? u.localeCompare(v) : u - v;
    return c * dir;
  });
}

function cell(v, sep) {
  const s = v == null ? "" : String(v);
  if (sep === "\t") return s.replace(/[\t\n\r]/g, " ");
  return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

// header: titles; rows: arrays of plain values (numbers stay exact).
export function toDelimited(header, rows, sep) {
  const lines = [header.map((h) => cell(h, sep)).join(sep)];
  for (const r of rows) lines.push(r.map((v) => cell(v, sep)).join(sep));
  return lines.join("\n") + "\n";
}

// The address of allocation i as hex ("" when unknown).
export function allocAddr(a, i) {
  if (!a.addrHi[i] && !a.addrLo[i]) return "";
  return "0x" + (a.addrHi[i] ? a.addrHi[i].toString(16) + a.addrLo[i].toString(16).padStart(8, "0") : a.addrLo[i].toString(16));
}

// The allocations idx as exported (Copy TSV, Download CSV), exact and in
// the columns of the server's /api/export (src/server/api.c export_row),
// which writes the same text: exact(t) the time as text (makeClock's exact).
export function exportAllocs(a, idx, exact, sep) {
  const header = [a.groupBy === "frame" ? "user frame" : "operator", "allocating op", "size_bytes", "allocated", "released",
    "duration_ns", "category", "stream", "address", "reason"];
  const rows = Array.from(idx, (i) => [
    a.groups[a.group[i]], a.strings[a.op[i]] || "", a.size[i],
    a.flags[i] & 1 ? "before trace" : exact(a.ta[i]), a.flags[i] & 2 ? "not released" : exact(a.tf[i]),
    a.tf[i] - a.ta[i], categoryOf(a, i) || "Unknown", a.strings[a.stream[i]] || "", allocAddr(a, i), reasonOf(a, i)]);
  return toDelimited(header, rows, sep);
}
