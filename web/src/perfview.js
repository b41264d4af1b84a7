// perfview.js — what the profiler views share: the "why there is nothing"
// message, number formats, the horizontal bar chart of the top entries, and
// PerfTableView, the frame of the Operators and Kernels views (toolbar with
// grouping, debounced search, CSV/TSV; the top-entries chart; a PerfTable;
// a detail panel for the selected row that Esc closes), and the detail's
// per-call durations (histogram, slowest calls linked to the Trace view).

import { escapeHtml, fmtDur, groupDigits, plural, OKABE_ITO } from "./format.js";
import { PerfTable, ptDownload, ptCopy } from "./perftable.js";

// A ratio 0-1 as "12.3 %"; null as "–".
export function pvPct(r, digits = 1) { return r == null || !isFinite(r) ? "–" : (r * 100).toFixed(digits) + " %"; }
export function pvNs(v) { return v == null ? "–" : fmtDur(v); }
export function pvInt(v) { return v == null ? "–" : groupDigits(v); }

// The message a view shows instead of its content: what is missing and how to get it.
export function pvWhy(el, title, why, hint) {
  el.innerHTML = `<div class="pv-why panel"><h2>${escapeHtml(title)}</h2>${why ? `<p>${escapeHtml(why)}</p>` : ""}${hint ? `<p class="hint-code">${hint}</p>` : ""}</div>`;
}

// The reason a rank has no time side (the meta's perfWhy), in words.
export function pvNoPerf(rank) {
  const r = rank || {}, c = r.caps || {};
  if (r.summarised) return r.perfWhy.charAt(0).toUpperCase() + r.perfWhy.slice(1) + ".";
  // the inputs that never have a time side say so in their own words (their caps); else the analyses' reason
  if (c.allocator_state) return "A memory snapshot (torch.cuda.memory._snapshot) holds the allocator's events only: it has no operators, kernels or step times. Profile with torch.profiler for those.";
  if (c.memory_record) return "A memory timeline (export_memory_timeline) holds memory only: it has no operators, kernels or step times.";
  if (r.perfWhy) return r.perfWhy.charAt(0).toUpperCase() + r.perfWhy.slice(1) + ".";
  if (c.insight_names) return "This Ascend export has no trace_view.json: it holds memory records only.";
  return "This input has no operator or kernel events.";
}

// Horizontal bars: items [{label, value, text?, title?}] scaled to the largest; colour by index or item.colour.
export function pvBars(el, items, opts = {}) {
  const max = Math.max(1e-12, ...items.map((x) => x.value || 0));
  el.innerHTML = items.length ? items.map((x, k) => `<div class="pv-bar" data-k="${k}" title="${escapeHtml(x.title || x.label)}">` +
    `<span class="l">${escapeHtml(x.label)}</span><span class="b"><i style="width:${(100 * (x.value || 0) / max).toFixed(2)}%;background:${x.colour || opts.colour || "var(--accent)"}"></i></span>` +
    `<span class="v">${escapeHtml(x.text != null ? x.text : String(x.value))}</span></div>`).join("")
    : `<div class="muted">${escapeHtml(opts.empty || "Nothing to chart.")}</div>`;
}

// Opens the Trace view with its search box set to text (trace.js highlights the matching slices).
export async function pvFindInTrace(app, text) {
  await app.tabs.go("trace");
  const i = document.querySelector("#trace-mount .tr-search, #trace-mount input[type=search]");
  if (!i) return false;
  i.value = text;
  i.dispatchEvent(new Event("input", { bubbles: true }));
  i.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
  return true;
}

// ---- per-call durations (the rows' "hist" and "slowest", web/DATA.md) ----

// The lower bound in ns of histogram bin b: 1-2-5 per decade (bin 0 from 0).
export function pvBinLower(b) {
  if (b <= 0) return 0;
  return [1, 2, 5][b % 3] * 10 ** Math.floor(b / 3);
}
// The bin of a duration in ns (as src/analysis/durhist.c).
export function pvBinOf(ns) {
  if (!(ns >= 2)) return 0;
  let e = 0;
  while (e < 18 && ns >= 10 ** (e + 1)) e++;
  const p = 10 ** e;
  return 3 * e + (ns >= 2 * p ? 1 : 0) + (ns >= 5 * p ? 1 : 0);
}
// A bin bound as an axis label: "0", "2 ns", "50 µs", "1 s".
export function pvNsShort(ns) {
  if (!ns) return "0";
  const [d, u] = ns >= 1e9 ? [1e9, "s"] : ns >= 1e6 ? [1e6, "ms"] : ns >= 1e3 ? [1e3, "µs"] : [1, "ns"];
  return +(ns / d).toPrecision(3) + " " + u;
}

// The bins of a row's histogram: [{b, lo, hi, n}] from its first bin with a call to its last.
export function pvHistBins(hist) {
  if (!hist || !Array.isArray(hist.counts)) return [];
  return hist.counts.map((n, i) => ({ b: hist.bin0 + i, lo: pvBinLower(hist.bin0 + i), hi: pvBinLower(hist.bin0 + i + 1), n }));
}

// A histogram of the calls' durations as SVG (bars on a log axis of durations in
// ns, labelled with units; each bar's <title> and data-tip: its range, calls and
// share); opts.mean (ns) marks the mean.  "" without a histogram.
export function pvHistogram(hist, opts = {}) {
  const bins = pvHistBins(hist);
  const total = bins.reduce((a, x) => a + x.n, 0);
  if (!total) return "";
  let lo = bins[0].b, hi = bins[bins.length - 1].b;
  for (let k = 0; hi - lo + 1 < 8; k++) { if (k % 2 && lo > 0) lo--; else hi++; } // at least 8 bins wide
  const max = Math.max(...bins.map((x) => x.n));
  // the left margin as wide as the y labels (the count at the top, "calls"): ~6 px a character at 11 px
  const L = Math.max(34, 8 + 6.2 * Math.max(groupDigits(max).length, 5));
  const nb = hi - lo + 1, W = 320, H = 118, R = 20, T = 10, B = 34, pw = W - L - R, ph = H - T - B;
  const bw = pw / nb;
  const X = (b) => L + (b - lo) * bw;
  // a duration's place on the axis: its bin, then linearly within it
  const xOf = (ns) => { const b = pvBinOf(ns), a = pvBinLower(b), z = pvBinLower(b + 1); return X(b + Math.min(1, Math.max(0, (ns - a) / (z - a)))); };
  const col = opts.colour || "var(--accent)";
  let h = `<svg class="pv-hist" viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="histogram of ${plural(total, "call")} by duration">`;
  h += `<line x1="${L}" x2="${W - R}" y1="${T + ph}" y2="${T + ph}" class="axis"/><line x1="${L}" x2="${L}" y1="${T}" y2="${T + ph}" class="axis"/>`;
  h += `<line x1="${L - 3}" x2="${W - R}" y1="${T}" y2="${T}" class="axis" stroke-dasharray="2 3"/>`;
  h += `<text x="${L - 5}" y="${T + 4}" class="lab" text-anchor="end">${groupDigits(max)}</text><text x="${L - 5}" y="${T + ph}" class="lab" text-anchor="end">0</text>`;
  h += `<text x="${L - 5}" y="${T + ph / 2 + 4}" class="lab" text-anchor="end">calls</text>`;
  for (const x of bins) {
    if (!x.n) continue;
    const bh = Math.max(1.5, ph * x.n / max);
    const tip = `${pvNsShort(x.lo)} – ${pvNsShort(x.hi)}: ${plural(x.n, "call")} (${(100 * x.n / total).toFixed(1)} %)`;
    h += `<rect class="pv-hbar" data-n="${x.n}" data-tip="${escapeHtml(tip)}" x="${(X(x.b) + 0.5).toFixed(1)}" y="${(T + ph - bh).toFixed(1)}" width="${Math.max(1, bw - 1).toFixed(1)}" height="${bh.toFixed(1)}" style="fill:${col}"><title>${escapeHtml(tip)}</title></rect>`;
  }
  // ticks at every bin bound, longer at the decades; labels at the decades, at least ~44 units apart
  const every = Math.max(1, Math.ceil(44 / (bw * 3)));
  for (let b = lo; b <= hi + 1; b++) {
    const decade = b % 3 === 0, x = X(b).toFixed(1);
    h += `<line x1="${x}" x2="${x}" y1="${T + ph}" y2="${T + ph + (decade ? 4 : 2)}" class="axis"/>`;
    if (decade && (b / 3) % every === 0) h += `<text x="${x}" y="${T + ph + 14}" class="lab" text-anchor="middle">${pvNsShort(pvBinLower(b))}</text>`;
  }
  h += `<text x="${L + pw / 2}" y="${H - 3}" class="lab" text-anchor="middle">${escapeHtml(opts.axis || "duration per call (log scale)")}</text>`;
  if (opts.mean > 0) {
    const x = xOf(opts.mean).toFixed(1);
    h += `<line class="pv-hmean" x1="${x}" x2="${x}" y1="${T - 4}" y2="${T + ph}" stroke="${OKABE_ITO[5]}" stroke-width="2"><title>mean ${escapeHtml(pvNs(opts.mean))}</title></line>`;
  }
  return h + "</svg>";
}

// The slowest calls of a row as links that open the Trace view on them (a.pv-call).
export function pvSlowest(slowest, name) {
  if (!Array.isArray(slowest) || !slowest.length) return "";
  return '<div class="ov pv-slowest">' + slowest.map(([ts, dur], k) =>
    `<a class="pv-call" href="#" data-ts="${ts}" data-dur="${dur}" data-name="${escapeHtml(name)}" title="open the Trace view on this call">` +
    `${k + 1}. ${escapeHtml(pvNs(dur))} <span class="muted">at ${escapeHtml(pvNs(ts))} into the trace</span></a>`).join("") + "</div>";
}

// The heading and body of a detail's per-call section: histogram and the slowest calls.
export function pvPerCall(r, opts = {}) {
  if (!r || !r.hist) return "";
  const lg = `<span class="lg"><i style="background:var(--accent)"></i>calls</span>` + (opts.mean > 0 ? ` <span class="lg"><i style="background:${OKABE_ITO[5]}"></i>mean</span>` : "");
  let h = `<h3>${escapeHtml(opts.title || "Duration per call")} ${lg}</h3>` + pvHistogram(r.hist, opts) + '<div class="pv-hist-cap muted">&nbsp;</div>';
  if (r.slowest && r.slowest.length) h += `<h3>Slowest call${r.slowest.length === 1 ? "" : "s"}</h3>` + pvSlowest(r.slowest, r.name);
  return h;
}

// Opens the Trace view zoomed on a call: `start` ns after the trace's start, `dur`
// long; selects the slice of that name starting there when the search finds it.
export async function pvOpenCall(app, rank, name, start, dur) {
  await app.tabs.go("trace");
  const h = app.traceHandle, v = h && h.view;
  if (!v) return null;
  if (h.ready) await h.ready;
  const tr = v.rank && v.rank.trace;
  if (!tr || !v.setWindow) return null;
  const t = tr.begin + start, pad = Math.max(dur, 1000);
  v.setWindow(t - pad, t + dur + pad);
  let f = null;
  try { f = app.source.findSlice ? await app.source.findSlice(rank, name, t - 1, 1) : null; } catch { f = null; }
  if (f && Math.abs(f.ts - t) < 1 && f.name === name) await v.select(f.id, true);
  else f = null;
  if (app.tabs.writeHash) app.tabs.writeHash();
  return f;
}

// A flash on a button (Copied / Downloaded).
export function pvFlash(btn, text) {
  const old = btn.dataset.label || (btn.dataset.label = btn.textContent);
  btn.textContent = text;
  clearTimeout(btn._t);
  btn._t = setTimeout(() => { btn.textContent = old; }, 1200);
}

// The detail panel's width beside a table (px; style.css .pv-body.open).
const DETAIL_W = 400;

// The frame of a table view.  cfg: {title, groups: [{id, label}], columns(group) -> columns,
// rows(perf, group) -> rows, rowKey(row, group) -> text, metric: {key, label} (chart default),
// detail(row, perf, group) -> html, placeholder, file, empty, others(perf, group) -> the
// rows past the cut, added up (perf "others"), or null}
export class PerfTableView {
  constructor(el, app, cfg) {
    this.el = el;
    this.app = app;
    this.cfg = cfg;
    this.group = cfg.groups[0].id;
    this.rank = -1;
    this.perf = null;
    this.sel = null;
    this.pending = null;   // selection / state from the address, applied once drawn
    el.innerHTML = `<section class="panel pv-main">
      <div class="bar"><h2>${escapeHtml(cfg.title)}</h2>
        <label class="sel">group by <select class="pv-group">${cfg.groups.map((g) => `<option value="${g.id}">${escapeHtml(g.label)}</option>`).join("")}</select></label>
        <input type="search" class="pv-search" placeholder="${escapeHtml(cfg.placeholder || "search by name")}" size="28" title="filter as you type (Ctrl+F)">
        <span class="muted pv-count"></span><span class="spacer"></span>
        <button class="pv-copy" title="copy the rows shown (all of them, not only those in sight) as tab-separated text">Copy TSV</button>
        <button class="pv-csv" title="download the rows shown as CSV">Download CSV</button></div>
      <div class="pv-others muted" hidden></div>
      <div class="pv-top"><div class="pv-chart-head muted"></div><div class="pv-chart"></div></div>
      <div class="pv-body"><div class="pv-table"></div>
        <aside class="pv-detail" hidden><div class="bar"><h2 class="pv-dtitle">Detail</h2><span class="spacer"></span><button class="pv-close" title="close (Esc)">✕</button></div><div class="pv-dbody detail"></div></aside></div>
    </section>`;
    const q = (s) => el.querySelector(s);
    this.search = q(".pv-search");
    this.groupSel = q(".pv-group");
    this.countEl = q(".pv-count");
    this.othersEl = q(".pv-others");
    this.chart = q(".pv-chart");
    this.chartHead = q(".pv-chart-head");
    this.detailEl = q(".pv-detail");
    this.main = q(".pv-main");
    let timer = 0;
    // "search": Esc in a search box clears it without an input event
    for (const ev of ["input", "search"]) this.search.addEventListener(ev, () => {
      clearTimeout(timer);
      timer = setTimeout(() => { if (this.table) this.table.setFilter(this.search.value); this.app.tabs && this.app.tabs.writeHash(); }, 150);
    });
    this.search.addEventListener("keydown", (e) => { if (e.key === "Enter") { clearTimeout(timer); this.table && this.table.setFilter(this.search.value); } });
    this.groupSel.addEventListener("change", () => { this.group = this.groupSel.value; this.sel = null; this.build(); this.app.tabs && this.app.tabs.writeHash(); });
    q(".pv-copy").addEventListener("click", async (e) => {
      if (!this.table) return;
      const text = this.table.exportText("tsv");
      pvFlash(e.target, (await ptCopy(text)) === "Copied" ? `Copied ${plural(this.table.idx.length, "row")}` : "Copy blocked");
    });
    q(".pv-csv").addEventListener("click", () => {
      if (!this.table) return;
      ptDownload(this.table.exportText("csv"), `memlens-${cfg.file}-${this.group}-rank${this.rank}.csv`);
    });
    q(".pv-close").addEventListener("click", () => this.closeDetail());
    // a narrower window may not hold the detail beside the table any more
    if (typeof ResizeObserver !== "undefined") new ResizeObserver(() => { if (!this.detailEl.hidden) this.placeDetail(); }).observe(q(".pv-body"));
  }

  async show(rank) {
    const perf = await this.app.perfOf(rank);
    if (rank === this.rank && perf === this.perf && this.table) return;
    this.rank = rank;
    this.perf = perf;
    if (!perf) {
      this.table = null;
      this.main.hidden = true;
      if (!this.whyEl) { this.whyEl = document.createElement("div"); this.el.appendChild(this.whyEl); }
      this.whyEl.hidden = false;
      pvWhy(this.whyEl, `No ${this.cfg.title.toLowerCase()} in this input`, pvNoPerf(this.app.meta.ranks[rank]));
      return;
    }
    this.main.hidden = false;
    if (this.whyEl) this.whyEl.hidden = true;
    this.build();
  }

  // (Re)makes the table for the group.
  build() {
    const cfg = this.cfg, cols = cfg.columns(this.group, this.perf);
    const holder = this.el.querySelector(".pv-table");
    const p = this.pending || {};
    this.pending = null;
    const sort = p.sort && cols.some((c) => c.key === p.sort) ? p.sort : (this.table && cols.some((c) => c.key === this.table.sort) ? this.table.sort : cfg.metric.key);
    const dir = p.dir ? (+p.dir > 0 ? 1 : -1) : this.table ? this.table.dir : -1;
    this.table = new PerfTable(holder, cols, {
      sort, dir, rowHeight: 24, empty: cfg.empty,
      rowKey: (r) => cfg.rowKey(r, this.group),
      onSelect: (row, i, user) => this.onSelect(row, user),
      onRefresh: () => this.refreshed(),
      onSort: () => this.app.tabs && this.app.tabs.writeHash(),
    });
    this.table.text = this.search.value;
    this.table.setRows(cfg.rows(this.perf, this.group));
    this.closeDetail(true);
    this.showOthers();
  }

  // The rows past the table's cut (perf "others", web/DATA.md): how many and
  // what they add up to; `memlens serve` can send more of them.
  showOthers() {
    const o = this.cfg.others ? this.cfg.others(this.perf, this.group) : null, el = this.othersEl;
    el.hidden = !o;
    if (!o) return;
    const shown = this.cfg.rows(this.perf, this.group).length, more = this.app.source.setPerfTop && shown < 100000000;
    const sums = o.device_self_ns != null
      ? `${pvNs(o.device_self_ns)} device self, ${pvNs(o.host_self_ns)} host self`
      : `${pvNs(o.total_ns)} in total`;
    el.innerHTML = `The top ${groupDigits(shown)} of ${groupDigits(shown + o.rows)} rows are listed; the other ${groupDigits(o.rows)} add up to ` +
      `${plural(o.calls, "call")}, ${sums}. ` +
      (more ? `<a href="#" class="pv-more">List the top ${groupDigits(shown * 10)}</a>` : "<code>memlens report --top N</code> lists more.");
    const a = el.querySelector(".pv-more");
    if (a) a.addEventListener("click", async (e) => {
      e.preventDefault();
      this.app.source.setPerfTop(shown * 10);
      this.perf = null;
      await this.show(this.rank);
    });
  }

  // After each filter or sort: the count and the chart of the top rows.
  refreshed() {
    const t = this.table, n = t.idx.length, all = t.rows.length;
    this.countEl.textContent = n === all ? plural(all, "row") : `${groupDigits(n)} of ${plural(all, "row")}`;
    const sc = t.col(t.sort);
    const m = sc && sc.num && sc.chart !== false ? sc : t.col(this.cfg.metric.key);
    const idx = m === sc && t.dir < 0 ? t.idx : null;
    let top;
    if (idx) top = Array.from(idx.slice(0, 10));
    else {
      top = Array.from(t.idx);
      top.sort((a, b) => ((+m.get?.(t.rows[b]) || +t.rows[b][m.key] || 0) - (+m.get?.(t.rows[a]) || +t.rows[a][m.key] || 0)));
      top = top.slice(0, 10);
    }
    this.chartHead.textContent = `Top ${top.length} by ${m.label.toLowerCase()}`;
    pvBars(this.chart, top.map((i) => {
      const r = t.rows[i], v = m.get ? m.get(r) : r[m.key];
      return { label: this.cfg.label ? this.cfg.label(r, this.group) : r.name, value: +v || 0, text: m.fmt ? m.fmt(v, r) : String(v), i };
    }), { empty: "No rows." });
    this.chart.querySelectorAll(".pv-bar").forEach((b, k) => b.addEventListener("click", () => { const j = t.posOf(top[k]); t.scrollToPos(j); t.select(top[k], true); }));
  }

  // The detail beside the table when the table keeps the width its columns
  // need, else under it (at full width): it never squeezes the table.
  placeDetail() {
    const body = this.el.querySelector(".pv-body"), t = this.el.querySelector("table.pt");
    if (!body || !t) return;
    const need = (parseFloat(t.style.minWidth) || 0) + DETAIL_W + 14;
    body.classList.toggle("below", body.clientWidth < need);
  }

  onSelect(row, user) {
    this.sel = row ? this.cfg.rowKey(row, this.group) : null;
    if (!row) { this.detailEl.hidden = true; this.el.querySelector(".pv-body").classList.remove("open"); }
    else {
      this.detailEl.hidden = false;
      this.el.querySelector(".pv-body").classList.add("open");
      this.placeDetail();
      const dt = this.el.querySelector(".pv-dtitle");
      dt.textContent = this.cfg.label ? this.cfg.label(row, this.group) : row.name;
      dt.title = row.name; // cut to the panel's width: the whole name on hover
      this.el.querySelector(".pv-dbody").innerHTML = this.cfg.detail(row, this.perf, this.group) +
        (this.app.tabs && this.app.tabs.shown.includes("trace")
          ? `<p><a class="pv-find" href="#" title="the Trace view (key 4) with its search set to this name">Find “${escapeHtml(row.name.length > 48 ? row.name.slice(0, 47) + "…" : row.name)}” in the Trace</a></p>` : "");
      this.el.querySelectorAll(".pv-dbody a[data-go]").forEach((a) => a.addEventListener("click", (e) => {
        e.preventDefault();
        this.app.tabs.go(a.dataset.go, a.dataset.sel);
      }));
      this.el.querySelectorAll(".pv-dbody a.pv-call").forEach((a) => a.addEventListener("click", (e) => {
        e.preventDefault();
        pvOpenCall(this.app, this.rank, a.dataset.name, +a.dataset.ts, +a.dataset.dur);
      }));
      const cap = this.el.querySelector(".pv-dbody .pv-hist-cap");
      this.el.querySelectorAll(".pv-dbody .pv-hbar").forEach((b) => {
        b.addEventListener("mouseenter", () => { if (cap) cap.textContent = b.dataset.tip; });
        b.addEventListener("mouseleave", () => { if (cap) cap.innerHTML = "&nbsp;"; });
      });
      const find = this.el.querySelector(".pv-dbody a.pv-find");
      if (find) find.addEventListener("click", (e) => { e.preventDefault(); pvFindInTrace(this.app, row.name); });
      // under the table: brought into sight when a click opened it
      if (user && this.el.querySelector(".pv-body").classList.contains("below") && this.detailEl.scrollIntoView)
        this.detailEl.scrollIntoView({ block: "nearest" });
    }
    if (user !== false && this.app.tabs) this.app.tabs.writeHash();
  }

  // Selects the row with key sel: in this grouping, else without the filter, else in another grouping.
  select(sel) {
    if (!this.table || sel == null || sel === "") return;
    if (this.table.selectKey(sel)) return;
    if (this.search.value) {
      this.search.value = "";
      this.table.setFilter("");
      if (this.table.selectKey(sel)) return;
    }
    for (const g of this.cfg.groups) {
      if (g.id === this.group) continue;
      const rows = this.cfg.rows(this.perf, g.id);
      if (!rows.some((r) => this.cfg.rowKey(r, g.id) === sel)) continue;
      this.group = g.id;
      this.groupSel.value = g.id;
      this.build();
      this.table.selectKey(sel);
      return;
    }
  }

  closeDetail(quiet) {
    if (!this.table || this.detailEl.hidden) return false;
    this.table.select(-1, quiet ? false : true);
    return true;
  }

  focusSearch() { if (this.main.hidden) return false; this.search.focus(); this.search.select(); return true; }

  hashExtra() {
    const t = this.table;
    const o = { sel: this.sel, group: this.group !== this.cfg.groups[0].id ? this.group : null, q: this.search.value || null };
    if (t && (t.sort !== this.cfg.metric.key || t.dir !== -1)) { o.sort = t.sort; o.dir = t.dir; }
    return o;
  }

  restore(p) {
    if (p.group && this.cfg.groups.some((g) => g.id === p.group)) { this.group = p.group; this.groupSel.value = p.group; }
    this.search.value = p.q || "";
    this.pending = { sort: p.sort, dir: p.dir };
    if (this.table) this.build();
  }
}
