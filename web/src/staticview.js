// staticview.js — static-graph memory (Ascend static_op_mem.csv), as
// MindStudio Insight's Memory tab shows it: per model and graph, the size of
// the live operator memory by node index, the graph's TOTAL row, and the
// operator table of the selected graph.  Node indices are not times: the
// view has its own axis ("node #k") and never formats them as durations.
//
// Data: device.static.graphs (web/DATA.md): {label, model, graph,
// total: [[node, bytes]], rows: [[name, start, end (-1 = to the end), bytes]]}.

import { fmtBytes, groupDigits, escapeHtml, plural, byteAxis, OKABE_ITO } from "./format.js";
import { VirtualRows } from "./perftable.js";

// The live operator memory of a graph by node index: an operator holds its
// bytes from its start node to its end node, both included (-1: to the last
// node).  Returns {last, nodes: Float64Array, bytes: Float64Array, peak, peakAt},
// one point per node 0..last (the value after every step at that node), and
// is the same computation as `memlens summary`'s "peak of live operator memory".
export function staticCurve(rows) {
  let last = 0;
  for (const r of rows) last = Math.max(last, r[1], r[2]);
  const delta = new Float64Array(last + 2);
  for (const [, s, e, b] of rows) {
    delta[Math.max(0, s)] += b;
    if (e >= 0) delta[e + 1] -= b;
  }
  const nodes = new Float64Array(last + 1), bytes = new Float64Array(last + 1);
  let live = 0, peak = -Infinity, peakAt = 0;
  for (let k = 0; k <= last; k++) {
    live += delta[k];
    nodes[k] = k; bytes[k] = live;
    if (live > peak) { peak = live; peakAt = k; }
  }
  return { last, nodes, bytes, peak: rows.length ? peak : 0, peakAt };
}

// The rows of a graph live at node k, largest first.
export function liveAtNode(rows, k, last) {
  return rows.filter((r) => r[1] <= k && (r[2] < 0 ? last : r[2]) >= k).sort((a, b) => b[3] - a[3]);
}

// The models and, per model, the graphs of a device's static data.
export function modelsOf(graphs) {
  const models = [];
  for (const g of graphs) if (!models.includes(g.model)) models.push(g.model);
  return models;
}

const COLS = [
  { k: "name", label: "Op Name", get: (r) => r[0] },
  { k: "start", label: "Node Index Start", get: (r) => r[1], num: true },
  { k: "end", label: "Node Index End", get: (r) => (r[2] < 0 ? Infinity : r[2]), num: true },
  { k: "nodes", label: "Nodes held", get: (r, last) => (r[2] < 0 ? last : r[2]) - r[1] + 1, num: true },
  { k: "size", label: "Size", get: (r) => r[3], num: true },
];

export class StaticView {
  constructor(app) {
    this.app = app;
    this.sort = { k: "size", dir: -1 };
    this.node = null;   // the node clicked: the table lists what is live there
    this.hoverRow = -1;
    this.u = null;
  }

  // Builds the panel (once), before the memory grid.
  mount() {
    if (this.el) return;
    const el = document.createElement("div");
    el.id = "static-view";
    el.className = "grid static-grid";
    el.innerHTML = `
<section class="panel wide" id="p-static">
  <div class="bar">
    <h2>Static graph memory</h2>
    <label class="sel">model <select id="st-model"></select></label>
    <label class="sel">Graph ID <select id="st-graph"></select></label>
    <span class="spacer"></span>
    <span class="muted" id="st-note"></span>
  </div>
  <div class="peak-label" id="st-peak"></div>
  <div id="st-chart"></div>
  <div class="hint muted">Size of the operator memory live at each node of the graph (an operator holds its size from its start node to its end node) · click a node for what is live there</div>
</section>
<section class="panel wide" id="p-static-ops">
  <div class="bar"><h2 id="st-ops-title">Operators</h2><span class="spacer"></span>
    <input id="st-filter" type="search" placeholder="filter by operator name" size="24">
    <button id="st-all" hidden>show all operators</button></div>
  <div class="table-count muted" id="st-count"></div>
  <div class="table-wrap"><table id="st-table"><thead></thead><tbody></tbody></table></div>
</section>`;
    const grid = document.querySelector("main.grid");
    grid.parentNode.insertBefore(el, grid);
    this.el = el;
    const $ = (id) => document.getElementById(id);
    $("st-model").addEventListener("change", (e) => { this.model = e.target.value; this.graphOptions(); this.open(); });
    $("st-graph").addEventListener("change", () => this.open());
    $("st-filter").addEventListener("input", () => this.table());
    $("st-all").addEventListener("click", () => { this.node = null; this.table(); this.u && this.u.redraw(false); });
    $("st-table").tHead.addEventListener("click", (e) => {
      const k = e.target.dataset && e.target.dataset.k;
      if (!k) return;
      this.sort = this.sort.k === k ? { k, dir: -this.sort.dir } : { k, dir: k === "name" || k === "start" ? 1 : -1 };
      this.table();
    });
    const tb = $("st-table").tBodies[0];
    tb.addEventListener("mouseover", (e) => { const tr = e.target.closest("tr"); this.setHoverRow(tr ? +tr.dataset.r : -1); });
    tb.addEventListener("mouseleave", () => this.setHoverRow(-1));
  }

  // Shows the device's static graphs (the memory grid is hidden by the app).
  show(dev) {
    this.mount();
    this.el.hidden = false;
    this.graphs = (dev.static && dev.static.graphs) || [];
    const models = modelsOf(this.graphs);
    const ms = document.getElementById("st-model");
    ms.innerHTML = models.map((m) => `<option value="${escapeHtml(m)}">${escapeHtml(m === "" ? "(none)" : m)}</option>`).join("");
    ms.disabled = models.length < 2;
    // The graph with the highest peak first: that is the question.
    let best = 0, bestV = -1;
    this.graphs.forEach((g, k) => { const c = staticCurve(g.rows); if (c.peak > bestV) { bestV = c.peak; best = k; } });
    this.model = this.graphs.length ? this.graphs[best].model : "";
    ms.value = this.model;
    this.graphOptions(best);
    this.open();
  }

  hide() { if (this.el) this.el.hidden = true; }

  graphOptions(pick) {
    const gs = document.getElementById("st-graph");
    const list = this.graphs.map((g, k) => ({ g, k })).filter((x) => x.g.model === this.model);
    gs.innerHTML = list.map((x) => `<option value="${x.k}">${escapeHtml(x.g.graph)} · ${plural(x.g.rows.length, "operator")}</option>`).join("");
    if (pick != null && list.some((x) => x.k === pick)) gs.value = String(pick);
    gs.disabled = list.length < 2;
  }

  current() { return this.graphs[+document.getElementById("st-graph").value] || null; }

  open() {
    const g = this.current();
    this.node = null; this.hoverRow = -1;
    const $ = (id) => document.getElementById(id);
    if (!g) {
      $("st-peak").textContent = "This export has no static graph rows.";
      $("st-chart").innerHTML = "";
      this.table();
      return;
    }
    this.curve = staticCurve(g.rows);
    const c = this.curve;
    const total = g.total.length ? g.total[g.total.length - 1][1] : null;
    $("st-peak").innerHTML = g.rows.length
      ? `Peak of live operator memory <span class="v" id="st-peak-value">${fmtBytes(c.peak)}</span> <span class="muted">(${groupDigits(c.peak)} bytes)</span> at node <b id="st-peak-node">#${c.peakAt}</b>` +
        (total != null ? ` · TOTAL row <b id="st-total">${fmtBytes(total)}</b> <span class="muted">(the graph's memory as the export states it)</span>` : "")
      : `No operator rows${total != null ? ` · TOTAL row <b id="st-total">${fmtBytes(total)}</b>` : ""}.`;
    $("st-note").textContent = `model ${g.model === "" ? "(none)" : g.model} · Graph ID ${g.graph} · nodes #0 – #${c.last} · ${plural(g.rows.length, "operator row")}`;
    this.build(total);
    this.table();
  }

  build(total) {
    const el = document.getElementById("st-chart"), c = this.curve, self = this;
    const css = (n) => getComputedStyle(document.documentElement).getPropertyValue(n).trim();
    const fg = css("--fg"), grid = css("--grid");
    const ymax = Math.max(1, c.peak, total || 0) * 1.1;
    const series = [{ label: "node", value: (u, v) => (v == null ? "–" : "#" + v) },
      { label: "live operator memory", stroke: OKABE_ITO[0], fill: OKABE_ITO[0] + "22", width: 1.6, paths: uPlot.paths.stepped({ align: 1 }), points: { show: false }, value: (u, v) => (v == null ? "–" : fmtBytes(v)) }];
    // one more point at last+1 so that the last node has a width
    const data = [Array.from(c.nodes).concat(c.last + 1), Array.from(c.bytes).concat(c.bytes[c.last])];
    if (total != null) {
      series.push({ label: "TOTAL row", stroke: OKABE_ITO[1], dash: [6, 3], width: 1.4, points: { show: false }, value: (u, v) => (v == null ? "–" : fmtBytes(v)) });
      data.push(data[0].map(() => total));
    }
    const opts = {
      width: el.clientWidth || 1200, height: 300, padding: [10, 36, 0, 0],
      legend: { live: true },
      cursor: { drag: { x: false, y: false }, points: { show: false } },
      scales: { x: { time: false, range: () => [0, c.last + 1] }, y: { range: () => [0, ymax] } },
      series,
      axes: [
        { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, label: "node index", labelSize: 18, size: 44,
          font: "12px system-ui, sans-serif", labelFont: "12px system-ui, sans-serif",
          splits: (u, ax, mn, mx) => { const step = Math.max(1, niceStep((mx - mn) / Math.max(2, u.bbox.width / devicePixelRatio / 70))); const out = []; for (let v = Math.ceil(mn / step) * step; v <= mx; v += step) out.push(v); return out; },
          values: (u, ticks) => ticks.map((v) => "#" + v) },
        { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, size: 170, label: "bytes (binary units)", labelSize: 18,
          font: "12px system-ui, sans-serif", labelFont: "12px system-ui, sans-serif",
          splits: (u) => byteAxis(ymax, u.bbox.height / devicePixelRatio).ticks,
          values: (u, ticks) => { const ax = byteAxis(ymax, u.bbox.height / devicePixelRatio); return ticks.map(ax.label); } },
      ],
      hooks: { draw: [(u) => self.marks(u)] },
    };
    if (this.u) this.u.destroy();
    el.innerHTML = "";
    this.u = new uPlot(opts, data, el);
    this.u.over.addEventListener("click", (e) => {
      const k = Math.floor(this.u.posToVal(e.offsetX, "x"));
      if (k >= 0 && k <= c.last) { this.node = k; this.table(); this.u.redraw(false); }
    });
  }

  // The peak, the node clicked and the hovered operator's span.
  marks(u) {
    const c = this.curve, ctx = u.ctx, dpr = devicePixelRatio, { left, top, width, height } = u.bbox;
    const css = (n) => getComputedStyle(document.documentElement).getPropertyValue(n).trim();
    ctx.save();
    ctx.beginPath(); ctx.rect(left, top, width, height); ctx.clip();
    const g = this.current();
    if (this.hoverRow >= 0 && g && g.rows[this.hoverRow]) {
      const r = g.rows[this.hoverRow];
      const x0 = u.valToPos(r[1], "x", true), x1 = u.valToPos((r[2] < 0 ? c.last : r[2]) + (r[2] < 0 ? 0 : 1), "x", true);
      ctx.fillStyle = css("--sel");
      ctx.fillRect(x0, top, Math.max(2 * dpr, x1 - x0), height);
    }
    if (c.peak > 0) {
      const x = u.valToPos(c.peakAt, "x", true), y = u.valToPos(c.peak, "y", true);
      ctx.fillStyle = ctx.strokeStyle = css("--peak");
      ctx.setLineDash([4 * dpr, 3 * dpr]); ctx.lineWidth = dpr;
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + height); ctx.stroke(); ctx.setLineDash([]);
      ctx.beginPath(); ctx.arc(x, y, 4 * dpr, 0, 7); ctx.fill();
    }
    if (this.node != null) {
      const x = u.valToPos(this.node, "x", true);
      ctx.strokeStyle = css("--accent"); ctx.lineWidth = dpr; ctx.setLineDash([2 * dpr, 2 * dpr]);
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + height); ctx.stroke();
    }
    ctx.restore();
  }

  setHoverRow(r) {
    if (r === this.hoverRow) return;
    this.hoverRow = Number.isFinite(r) ? r : -1;
    this.u && this.u.redraw(false);
  }

  table() {
    const $ = (id) => document.getElementById(id), g = this.current();
    const thead = $("st-table").tHead, tbody = $("st-table").tBodies[0];
    if (!g) { thead.innerHTML = ""; tbody.innerHTML = ""; $("st-count").textContent = ""; return; }
    const last = this.curve.last, text = $("st-filter").value.trim().toLowerCase();
    let idx = g.rows.map((r, k) => k);
    if (this.node != null) { const live = new Set(liveAtNode(g.rows, this.node, last)); idx = idx.filter((k) => live.has(g.rows[k])); }
    if (text) idx = idx.filter((k) => g.rows[k][0].toLowerCase().includes(text));
    const col = COLS.find((x) => x.k === this.sort.k) || COLS[4], dir = this.sort.dir;
    idx.sort((a, b) => {
      const x = col.get(g.rows[a], last), y = col.get(g.rows[b], last);
      return (col.num ? (x === y ? 0 : x < y ? -1 : 1) : String(x).localeCompare(String(y))) * dir || a - b;
    });
    thead.innerHTML = "<tr>" + COLS.map((x) => `<th data-k="${x.k}" class="${x.num ? "num" : ""}" title="sort">${x.label}${x.k === this.sort.k ? (dir > 0 ? " ▲" : " ▼") : ""}</th>`).join("") + "</tr>";
    // every row, only those in sight in the DOM (VirtualRows)
    if (!this.vr) this.vr = new VirtualRows($("st-table").parentElement, tbody, { rowHeight: 24, columns: COLS.length, rowHtml: (j) => this.rowHtml(j) });
    this.shown = { g, idx, last };
    this.vr.setCount(idx.length);
    const sum = idx.reduce((s, k) => s + g.rows[k][3], 0);
    $("st-ops-title").textContent = this.node != null ? `Operators live at node #${this.node}` : `Operators of graph ${g.graph}`;
    $("st-all").hidden = this.node == null;
    $("st-count").textContent = `${plural(idx.length, "operator row")}, ${fmtBytes(sum)}`;
  }

  // The j-th row of the table, as HTML.
  rowHtml(j) {
    const { g, idx, last } = this.shown, k = idx[j], r = g.rows[k];
    return `<tr data-r="${k}"${j & 1 ? ' class="odd"' : ""} style="height:24px"><td class="name" title="${escapeHtml(r[0])}">${escapeHtml(r[0])}</td><td class="num">#${r[1]}</td><td class="num">${r[2] < 0 ? '<span class="muted" title="held to the end of the graph (4294967295 in the export)">to the end</span>' : "#" + r[2]}</td>` +
      `<td class="num">${groupDigits(COLS[3].get(r, last))}</td><td class="num" title="${groupDigits(r[3])} bytes">${fmtBytes(r[3])}</td></tr>`;
  }

  resize() { if (this.u && this.el && !this.el.hidden) this.u.setSize({ width: document.getElementById("st-chart").clientWidth, height: 300 }); }
}

function niceStep(x) {
  const p = Math.pow(10, Math.floor(Math.log10(Math.max(1, x))));
  for (const m of [1, 2, 5, 10]) if (m * p >= x) return m * p;
  return 10 * p;
}
