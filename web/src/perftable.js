// perftable.js — a generic virtualised table for the profiler views: only the
// rows in sight are in the DOM (smooth at 100,000 rows), sortable by any
// column (click a header; again to reverse), filtered by a text (every word
// must occur in one of the searched columns, case-insensitive), exported as
// CSV or TSV (the rows the filter keeps, in their order, raw values).
//
//   columns: [{key, label, title?, num?: bool, fmt?: (v, row) => text, get?: row => value,
//              search?: bool (searched by the filter; default: text columns), csv?: row => value,
//              width?: px, cls?: class}]
//   const t = new PerfTable(el, columns, {onSelect(row, i), rowKey(row) -> text, empty: text});
//   t.setRows(rows); t.setFilter("mm"); t.sortBy("total_ns", -1); t.selectKey("aten::mm");
//
// VirtualRows is what PerfTable scrolls with, for a table of your own (a tree,
// a custom header): only the rows in sight (and a few more) are in the tbody,
// between two spacer rows that keep the scroll height; a scroll adds and
// removes only the rows that come into sight or leave it, so that a frame
// lays out a dozen rows, not every row in sight (under 16 ms a frame at
// 100,000 rows: web/test-browser/perf.mjs measures it).  The scroller must
// have a height (or max-height) and overflow: auto; rows one line each, of
// rowHeight px (style them white-space: nowrap).
//   const vr = new VirtualRows(scroller, tbody, {rowHeight: 24, columns: 6,
//                              rowHtml: (j) => `<tr data-i="${j}">…</tr>`});
//   vr.setCount(n);      // after the rows change: redraws what is in sight
//   vr.scrollToRow(j);   // brings row j into sight
//   vr.range             // [first, last): the rows in the DOM
// A row's HTML is asked again each time it comes into sight: keep rowHtml
// cheap and stripe rows with the "odd" class (rowHtml(j) gets j), not
// :nth-child, which shifts as rows come and go.

import { escapeHtml } from "./format.js";

// The value of a column in a row.
export function ptValue(col, row) { return col.get ? col.get(row) : row[col.key]; }

// Indices of the rows whose searched columns hold every word of text (Uint32Array).
export function ptFilter(rows, columns, text) {
  const words = String(text || "").toLowerCase().split(/\s+/).filter(Boolean);
  const n = rows.length;
  if (!words.length) { const all = new Uint32Array(n); for (let i = 0; i < n; i++) all[i] = i; return all; }
  const cols = columns.filter((c) => (c.search != null ? c.search : !c.num));
  const out = new Uint32Array(n);
  let k = 0;
  for (let i = 0; i < n; i++) {
    const r = rows[i];
    let hay = r._hay;
    if (hay === undefined) {
      hay = "";
      for (const c of cols) { const v = ptValue(c, r); if (v != null) hay += (hay ? "\u0001" : "") + String(v).toLowerCase(); }
      try { Object.defineProperty(r, "_hay", { value: hay, enumerable: false, writable: true }); } catch { /* frozen rows */ }
    }
    let keep = true;
    for (const w of words) if (hay.indexOf(w) < 0) { keep = false; break; }
    if (keep) out[k++] = i;
  }
  return out.slice(0, k);
}

// idx (indices into rows) sorted by a column: numbers numerically, nulls
// last whatever the direction; text by code point; ties by index (stable).
export function ptSort(rows, idx, col, dir = 1) {
  const n = idx.length, out = Uint32Array.from(idx);
  if (!col) return out;
  if (col.num) {
    const key = new Float64Array(rows.length);
    for (let j = 0; j < n; j++) {
      const i = idx[j], v = ptValue(col, rows[i]);
      key[i] = v == null || v === "" || Number.isNaN(+v) ? NaN : typeof v === "boolean" ? +v : +v;
    }
    out.sort((a, b) => {
      const x = key[a], y = key[b], xn = x !== x, yn = y !== y;
      if (xn || yn) return xn && yn ? a - b : xn ? 1 : -1;
      return x === y ? a - b : (x < y ? -dir : dir);
    });
  } else {
    const key = new Array(rows.length);
    for (let j = 0; j < n; j++) { const i = idx[j], v = ptValue(col, rows[i]); key[i] = v == null ? null : String(v); }
    out.sort((a, b) => {
      const x = key[a], y = key[b];
      if (x === null || y === null) return x === y ? a - b : x === null ? 1 : -1;
      return x === y ? a - b : (x < y ? -dir : dir);
    });
  }
  return out;
}

// The rows to put in the DOM for a scroll position: [first, last) with overscan.
export function ptVisible(scrollTop, height, rowH, n, over = 8) {
  const first = Math.max(0, Math.floor(scrollTop / rowH) - over);
  const last = Math.min(n, Math.ceil((scrollTop + height) / rowH) + over);
  return [first, Math.max(first, last)];
}

function ptCell(v, sep) {
  if (v == null) return "";
  const s = Array.isArray(v) ? v.join(" | ") : String(v);
  if (sep === "\t") return s.replace(/[\t\r\n]+/g, " ");
  return /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

// CSV (sep ",") or TSV (sep "\t") of rows idx: a header of the labels, then raw values.
export function ptDelimited(rows, idx, columns, sep = ",") {
  const lines = [columns.map((c) => ptCell(c.csvLabel || c.label, sep)).join(sep)];
  for (let j = 0; j < idx.length; j++) {
    const r = rows[idx[j]];
    lines.push(columns.map((c) => ptCell(c.csv ? c.csv(r) : ptValue(c, r), sep)).join(sep));
  }
  return lines.join("\n") + "\n";
}

// How to go from rows [pa, pb) in the DOM to rows [a, b): {rebuild} when they
// share none, else how many rows to drop at the top and at the end, and the
// ranges to add there ([from, to), possibly empty).
export function vrPlan([pa, pb], [a, b]) {
  if (b <= pa || a >= pb || pa === pb) return { rebuild: true };
  return { dropTop: Math.max(0, a - pa), dropEnd: Math.max(0, pb - b), addTop: [a, Math.max(a, Math.min(pa, b))], addEnd: [Math.min(b, Math.max(pb, a)), b] };
}

// The rows of a long table, only those in sight in the DOM (module header).
export class VirtualRows {
  constructor(scroller, tbody, opts) {
    this.scroller = scroller;
    this.tbody = tbody;
    this.rowH = opts.rowHeight || 24;
    this.columns = opts.columns || 1;
    this.rowHtml = opts.rowHtml;
    this.over = opts.overscan ?? 8;
    this.n = 0;
    this.range = [0, 0];
    this.padTop = this.padEnd = null;
    // at once: the browser sends scroll events once a frame, before it draws
    scroller.addEventListener("scroll", () => this.render());
  }

  // n rows now (their content may have changed too): redraw those in sight.
  setCount(n) {
    this.n = n;
    // a scroller as tall as its rows (up to max-height) is as short as the rows in it
    // at first: rows enough for its max-height, then
    this.maxH = parseFloat(getComputedStyle(this.scroller).maxHeight) || 0;
    this.scroller.scrollTop = Math.min(this.scroller.scrollTop, Math.max(0, n * this.rowH - this.scroller.clientHeight));
    this.render(true);
  }

  // Puts the rows in sight in the DOM; force: all of them anew.
  render(force) {
    const n = this.n, h = Math.max(this.scroller.clientHeight, this.maxH || 0) || 480;
    const [a, b] = ptVisible(this.scroller.scrollTop, h, this.rowH, n, this.over);
    const [pa, pb] = this.range;
    if (!force && this.padTop && a === pa && b === pb) return false;
    this.range = [a, b];
    const body = this.tbody, html = (x, y) => { let s = ""; for (let j = x; j < y; j++) s += this.rowHtml(j); return s; };
    const plan = vrPlan([pa, pb], [a, b]);
    if (force || !this.padTop || !this.padTop.isConnected || plan.rebuild) {
      const pad = `<tr class="pt-pad" aria-hidden="true"><td colspan="${this.columns}"></td></tr>`;
      body.innerHTML = pad + html(a, b) + pad;
      this.padTop = body.firstElementChild;
      this.padEnd = body.lastElementChild;
    } else {
      for (let k = 0; k < plan.dropTop; k++) this.padTop.nextElementSibling.remove();    // gone above
      for (let k = 0; k < plan.dropEnd; k++) this.padEnd.previousElementSibling.remove(); // gone below
      if (plan.addTop[1] > plan.addTop[0]) this.padTop.insertAdjacentHTML("afterend", html(...plan.addTop));
      if (plan.addEnd[1] > plan.addEnd[0]) this.padEnd.insertAdjacentHTML("beforebegin", html(...plan.addEnd));
    }
    this.padTop.style.height = a * this.rowH + "px";
    this.padEnd.style.height = (n - b) * this.rowH + "px";
    return true;
  }

  // Scrolls so that row j is in sight (below a sticky header of head px).
  scrollToRow(j, head = 0) {
    const top = j * this.rowH, sc = this.scroller, h = sc.clientHeight;
    if (top < sc.scrollTop) sc.scrollTop = top;
    else if (top + this.rowH + head > sc.scrollTop + h) sc.scrollTop = top + this.rowH + head - h;
    this.render();
  }
}

export class PerfTable {
  constructor(el, columns, opts = {}) {
    this.el = el;
    this.columns = columns;
    this.opts = opts;
    this.rowH = opts.rowHeight || 24;
    this.rows = [];
    this.text = "";
    this.sort = opts.sort || null;   // column key
    this.dir = opts.dir || -1;
    this.idx = new Uint32Array(0);
    this.selected = -1;               // index into rows
    this.lastRenderMs = 0;
    el.classList.add("ptable");
    el.innerHTML = `<div class="pt-scroll" tabindex="0"><table class="pt"><colgroup>${columns.map((c) => `<col${c.width ? ` style="width:${c.width}px"` : ""}>`).join("")}</colgroup>` +
      `<thead><tr>${columns.map((c, k) => `<th data-c="${k}" class="${c.num ? "n" : ""}${c.cls ? " " + c.cls : ""}" title="${escapeHtml(c.title || c.label)}">${escapeHtml(c.label)}</th>`).join("")}</tr></thead>` +
      `<tbody></tbody></table></div><div class="pt-empty muted" hidden></div>`;
    this.scroller = el.querySelector(".pt-scroll");
    // Narrow panes scroll sideways rather than squeeze the columns.
    el.querySelector("table.pt").style.minWidth = columns.reduce((a, c) => a + (c.width || c.minWidth || 220), 0) + "px";
    this.tbody = el.querySelector("tbody");
    this.thead = el.querySelector("thead");
    this.emptyEl = el.querySelector(".pt-empty");
    this.thead.addEventListener("click", (e) => {
      const th = e.target.closest("th");
      if (!th) return;
      const c = this.columns[+th.dataset.c];
      this.sortBy(c.key, this.sort === c.key ? -this.dir : c.num ? -1 : 1);
      if (this.opts.onSort) this.opts.onSort(this.sort, this.dir);
    });
    this.vr = new VirtualRows(this.scroller, this.tbody, { rowHeight: this.rowH, columns: columns.length, rowHtml: (j) => this.rowHtml(j) });
    this.tbody.addEventListener("click", (e) => {
      const tr = e.target.closest("tr[data-r]");
      if (tr) this.select(+tr.dataset.r, true);
    });
    this.scroller.addEventListener("keydown", (e) => {
      if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
      e.preventDefault();
      const pos = this.posOf(this.selected);
      const next = pos < 0 ? 0 : Math.max(0, Math.min(this.idx.length - 1, pos + (e.key === "ArrowDown" ? 1 : -1)));
      if (this.idx.length) { this.select(this.idx[next], true); this.scrollToPos(next); }
    });
  }

  col(key) { return this.columns.find((c) => c.key === key) || null; }

  setRows(rows) {
    this.rows = rows || [];
    this.selected = -1;
    this.refresh();
  }

  setFilter(text) {
    if (text === this.text) return;
    this.text = text;
    this.refresh();
  }

  sortBy(key, dir) {
    this.sort = key;
    this.dir = dir || -1;
    this.refresh();
  }

  // Filter and sort again, then draw.
  refresh() {
    const t = performance.now();
    this.idx = ptSort(this.rows, ptFilter(this.rows, this.columns, this.text), this.col(this.sort), this.dir);
    this.thead.querySelectorAll("th").forEach((th) => {
      const c = this.columns[+th.dataset.c];
      th.classList.toggle("sorted", c.key === this.sort);
      th.classList.toggle("asc", c.key === this.sort && this.dir > 0);
    });
    // as tall as its rows, up to maxHeight (then it scrolls)
    this.scroller.style.height = Math.max(this.rowH * 4, Math.min(this.opts.maxHeight || 560, (this.idx.length + 1) * this.rowH + 4)) + "px";
    this.renderRows(true);
    this.lastRefreshMs = performance.now() - t;
    if (this.opts.onRefresh) this.opts.onRefresh(this);
  }

  // The rows in sight ([first, last) of the filtered order) are in the DOM.
  get range() { return this.vr.range; }

  // Puts the rows in sight in the DOM (VirtualRows); force: anew (after a filter or sort).
  renderRows(force) {
    const t = performance.now(), n = this.idx.length;
    if (force) this.vr.setCount(n);
    else if (!this.vr.render()) return;
    this.emptyEl.hidden = n > 0;
    this.emptyEl.textContent = n ? "" : this.rows.length ? `No row matches “${this.text}”.` : (this.opts.empty || "No rows.");
    this.lastRenderMs = performance.now() - t;
  }

  // The row at position j of the filtered order, as HTML (stripes by position).
  rowHtml(j) {
    const cols = this.columns, nc = cols.length, i = this.idx[j], r = this.rows[i];
    const cls = (j & 1 ? "odd" : "") + (i === this.selected ? " sel" : "");
    let html = `<tr data-r="${i}"${cls ? ` class="${cls.trim()}"` : ""} style="height:${this.rowH}px">`;
    for (let k = 0; k < nc; k++) {
      const c = cols[k], v = ptValue(c, r);
      const text = c.fmt ? c.fmt(v, r) : v == null ? "–" : String(v);
      const cc = (c.num ? "n" : "") + (c.cls ? " " + c.cls : "");
      html += `<td${cc ? ` class="${cc.trim()}"` : ""}${c.num ? "" : ` title="${escapeHtml(v == null ? "" : String(v))}"`}>${c.html ? text : escapeHtml(text)}</td>`;
    }
    return html + "</tr>";
  }

  posOf(i) {
    if (i < 0) return -1;
    for (let j = 0; j < this.idx.length; j++) if (this.idx[j] === i) return j;
    return -1;
  }

  scrollToPos(j) { this.vr.scrollToRow(j, this.thead.offsetHeight || this.rowH); }

  // Selects row i (index into rows; -1 none); user: from a click or a key.
  select(i, user) {
    this.selected = i;
    this.tbody.querySelectorAll("tr.sel").forEach((tr) => tr.classList.remove("sel"));
    const tr = this.tbody.querySelector(`tr[data-r="${i}"]`);
    if (tr) tr.classList.add("sel");
    if (this.opts.onSelect) this.opts.onSelect(i >= 0 ? this.rows[i] : null, i, user);
  }

  // Selects the row whose rowKey is key (from the address), scrolling to it; false if none.
  selectKey(key) {
    const rk = this.opts.rowKey;
    if (!rk) return false;
    const i = this.rows.findIndex((r) => rk(r) === key);
    if (i < 0) return false;
    const j = this.posOf(i);
    if (j >= 0) this.scrollToPos(j);
    this.select(i, false);
    return true;
  }

  // The rows the filter keeps, in their order, as text.
  exportText(fmt) { return ptDelimited(this.rows, this.idx, this.columns, fmt === "tsv" ? "\t" : ","); }
}

// Download text as a file (the report works offline: a blob link).
export function ptDownload(text, name, type = "text/csv") {
  const a = document.createElement("a");
  const url = URL.createObjectURL(new Blob([text], { type }));
  a.href = url;
  a.download = name;
  document.body.appendChild(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// Copy text to the clipboard; resolves to a short outcome for the button.
export async function ptCopy(text) {
  try { await navigator.clipboard.writeText(text); return "Copied"; }
  catch {
    try {
      const ta = document.createElement("textarea");
      ta.value = text; ta.style.position = "fixed"; ta.style.opacity = "0";
      document.body.appendChild(ta); ta.select();
      const ok = document.execCommand("copy"); ta.remove();
      return ok ? "Copied" : "Copy blocked";
    } catch { return "Copy blocked"; }
  }
}
