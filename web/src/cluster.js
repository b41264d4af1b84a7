// cluster.js — the Cluster view (key 9): a job's ranks side by side.  A rank
// x step heatmap of step time, the main device's peak memory within each
// step, or communication time, drawn on a canvas; the outliers and the
// digests beside it (analysis/cluster.h: robust scores, median and MAD).
//
// Thousands of ranks do not fit in pixels: each pixel row then stands for a
// run of ranks (or of nodes) and shows the highest of their values, so an
// outlier is never averaged away, and the tooltip says how many it holds.
// The colours span at least ±1 % of the median (clusterScale): noise is one
// colour, not the whole ramp.
// Rows may be grouped by node (global rank / ranks per node): one row per
// node, its highest value, a click opens its rank with that value.
// A click on a cell opens that rank's views at that step: Memory for peak
// memory, Trace for the times, zoomed to the step.  In a report a rank may be
// summarised (outside the page's size budget): the view says so and how to
// see it.
//
// Data: source.getCluster() (web/DATA.md "cluster").

import { fmtBytes, fmtDur, groupDigits, escapeHtml } from "./format.js";
import { pvWhy } from "./perfview.js";
import { placeTip } from "./tip.js";

// The view an outlier opens in: its memory for a memory figure (a peak, a
// growth, an out-of-memory), else its time (a straggler's slow steps, its
// communication): the Trace view, whatever metric the heatmap shows.
export function outlierView(o) {
  return /bytes|oom|memory/i.test(String((o && o.metric) || "") + " " + String((o && o.category) || "")) ? "memory" : "trace";
}

export const CLUSTER_METRICS = [
  { id: "time", label: "Step time", key: "time", unit: "ns", what: "each step's duration (its ProfilerStep#)", view: "trace" },
  { id: "peak", label: "Peak memory", key: "peak", unit: "bytes", what: "the highest allocated memory of the rank's main device within the step", view: "memory" },
  { id: "comm", label: "Communication", key: "comm", unit: "ns", what: "time in collective kernels within the step", view: "trace" },
];

// Viridis (perceptually uniform, readable by colour-blind people), 9 anchors interpolated.
const VIRIDIS = ["#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962", "#addc30", "#fde725"];
const RAMP = (() => {
  const hex = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
  const anchors = VIRIDIS.map(hex), out = [];
  for (let i = 0; i < 256; i++) {
    const x = i / 255 * (anchors.length - 1), k = Math.min(anchors.length - 2, Math.floor(x)), f = x - k;
    out.push(anchors[k].map((c, j) => Math.round(c + (anchors[k + 1][j] - c) * f)));
  }
  return out;
})();

// A cell's value as the rest of the page writes it (three significant digits).
export function clusterValueText(unit, v) {
  if (v == null || !(v >= 0)) return "–";
  return unit === "bytes" ? fmtBytes(v) : fmtDur(v);
}

// The colour scale of metric values m (-1: none): the lowest to the highest
// value, widened to at least ±CLUSTER_MIN_SPAN of their median, so that ranks
// within noise of each other (a 0.02 % spread) read as one colour rather
// than the whole ramp, while a rank a few per cent off still stands out.
// Returns the values' {lo, hi, med} (null where there is none) and the
// ramp's ends {from, to}.
export const CLUSTER_MIN_SPAN = 0.01;
export function clusterScale(m) {
  const v = new Float64Array(m ? m.length : 0);
  let n = 0;
  if (m) for (const x of m) if (x >= 0) v[n++] = x;
  if (!n) return { lo: null, hi: null, med: null, from: 0, to: 1 };
  const s = v.subarray(0, n).sort(), lo = s[0], hi = s[n - 1];
  const med = n % 2 ? s[n >> 1] : (s[n / 2 - 1] + s[n / 2]) / 2;
  return { lo, hi, med, from: Math.min(lo, med * (1 - CLUSTER_MIN_SPAN)), to: Math.max(hi, med * (1 + CLUSTER_MIN_SPAN)) };
}

// The rows drawn: per rank, or per node (the highest of its ranks' values per
// step, and which rank that is).  Returns {n, label(i), cell(i, s) -> [value, rank]}.
export function clusterRows(data, metric, byNode, perNode) {
  const m = data[metric], S = data.nSteps, R = data.nRanks, ranks = data.rankNo;
  if (!byNode) {
    return { n: R, label: (i) => "rank " + ranks[i], rankOf: (i) => [i], cell: (i, s) => [m ? m[i * S + s] : -1, i] };
  }
  const per = Math.max(1, perNode | 0), nodes = new Map();
  for (let i = 0; i < R; i++) {
    const node = ranks[i] >= 0 ? Math.floor(ranks[i] / per) : -1;
    if (!nodes.has(node)) nodes.set(node, []);
    nodes.get(node).push(i);
  }
  const keys = [...nodes.keys()].sort((a, b) => (a < 0) - (b < 0) || a - b), members = keys.map((k) => nodes.get(k));
  return {
    n: keys.length,
    label: (i) => (keys[i] >= 0 ? "node " + keys[i] : "rank unknown"),
    rankOf: (i) => members[i],
    cell: (i, s) => {
      let best = -1, who = members[i][0];
      for (const r of members[i]) { const v = m ? m[r * S + s] : -1; if (v > best) { best = v; who = r; } }
      return [best, who];
    },
  };
}

export class ClusterView {
  constructor(el, app) {
    this.el = el;
    this.app = app;
    this.metric = "time";
    this.byNode = false;
    this.perNode = 0;
    this.data = null;
    // the hover tip: one for the view, kept across renders (placeTip moves it to the body)
    this.tip = document.createElement("div");
    this.tip.className = "tip cl-tip";
    this.tip.hidden = true;
    // the heatmap takes the window's width: drawn again when it changes (while shown)
    if (typeof window !== "undefined") {
      let t;
      window.addEventListener("resize", () => { clearTimeout(t); t = setTimeout(() => { if (this.data && !this.el.hidden && this.el.querySelector(".cl-map")) this.draw(); }, 100); });
    }
  }

  // The metric shown: its id (the address's metric=), its CLUSTER_METRICS
  // entry looked up once a change (this.def: unit, label, view).
  get metric() { return this.def.id; }
  set metric(id) { this.def = CLUSTER_METRICS.find((x) => x.id === id) || CLUSTER_METRICS[0]; }

  async show() {
    if (!this.data) {
      this.el.innerHTML = '<div class="loading">Reading the job’s ranks…</div>';
      try { this.data = await this.app.source.getCluster((p) => { this.el.innerHTML = `<div class="loading">Reading the job’s ranks: ${groupDigits(p.done)} of ${groupDigits(p.total)}…</div>`; }); }
      catch (e) { pvWhy(this.el, "No cluster view", "Cannot read the job's ranks: " + e.message); return; }
    }
    const d = this.data;
    if (!d) { pvWhy(this.el, "No cluster view", "The Cluster view compares the ranks of a job: open a directory of ranks (one trace per rank)."); return; }
    if (!this.perNode) this.perNode = (d.summary && d.summary.ranks_per_node) || 8;
    if (!d.comm && this.metric === "comm") this.metric = "time";
    if (!d.time.some((v) => v >= 0) && this.metric === "time") this.metric = "peak";
    this.render();
  }

  render() {
    const d = this.data, s = d.summary || {}, emb = d.embedded;
    const nEmb = emb ? emb.reduce((a, x) => a + (x ? 1 : 0), 0) : d.nRanks;
    const metrics = CLUSTER_METRICS.filter((m) => d[m.key]);
    this.el.innerHTML = `<section class="panel cl-head"><div class="bar"><h2>Cluster</h2>
        <span class="muted">${groupDigits(d.nRanks)} rank${d.nRanks === 1 ? "" : "s"} · world size ${groupDigits(s.world_size || d.nRanks)} · ${groupDigits(d.nSteps)} step${d.nSteps === 1 ? "" : "s"}${emb && nEmb < d.nRanks ? ` · <span class="cl-emb" title="the report's size budget: the other ranks are summarised">full data for ${groupDigits(nEmb)} of them</span>` : ""}</span>
        <span class="spacer"></span>
        <span class="seg cl-metric">${metrics.map((m) => `<button data-m="${m.id}" class="${m.id === this.metric ? "on" : ""}" title="${escapeHtml(m.what)}">${m.label}</button>`).join("")}</span>
        <label class="sel">rows <select class="cl-rows"><option value="rank">by rank</option><option value="node"${this.byNode ? " selected" : ""}>by node</option></select></label>
        <label class="sel" title="global rank / ranks per node = node">ranks per node <input class="cl-per" type="number" min="1" max="1024" value="${this.perNode}" size="4"></label>
      </div>${emb && nEmb < d.nRanks ? `<div class="hint muted">This report embeds the full data of ${groupDigits(nEmb)} of the ${groupDigits(d.nRanks)} ranks (the outliers and the highest peak first, within its size budget${d.budget ? " of " + Math.round(d.budget / 1e6) + " MB" : ""}); the others are summarised: their figures are all here, their events are not. <code>memlens serve</code> has every rank.</div>` : ""}</section>
      <div class="cl-main"><section class="panel cl-mapp"><div class="cl-legend"></div><div class="cl-wrap"><canvas class="cl-map"></canvas></div>
        <div class="hint muted cl-hint">Each cell a rank and a step; a pixel row holding several ranks (or nodes) shows the highest of their values. Click a cell to open that rank at that step.</div><div class="cl-msg"></div>
        <h2>Digests</h2><div class="cl-dig"></div></section>
        <aside class="panel cl-side"><h2>Outliers</h2><div class="cl-out"></div></aside></div>`;
    const q = (x) => this.el.querySelector(x);
    q(".cl-metric").addEventListener("click", (e) => { const m = e.target.dataset && e.target.dataset.m; if (m) { this.metric = m; this.render(); this.app.tabs.writeHash(); } });
    q(".cl-rows").addEventListener("change", (e) => { this.byNode = e.target.value === "node"; this.render(); this.app.tabs.writeHash(); });
    q(".cl-per").addEventListener("change", (e) => { const v = +e.target.value; if (v >= 1) { this.perNode = v; this.render(); this.app.tabs.writeHash(); } });
    this.side();
    this.draw();
    const c = q(".cl-map");
    c.addEventListener("mousemove", (e) => this.hover(e));
    c.addEventListener("mouseleave", () => { this.tip.hidden = true; });
    c.addEventListener("click", (e) => this.click(e));
  }

  // The outliers (every one, scrolled) and the digests of the summary object.
  side() {
    const d = this.data, s = d.summary || {}, q = (x) => this.el.querySelector(x);
    const units = { peak_allocated_bytes: "bytes", peak_reserved_bytes: "bytes", memory_growth_bytes_per_step: "bytes", oom_events: "count" };
    const fmt = (metric, v) => {
      if (v == null) return "–";
      const u = units[metric] || "us";
      if (u === "count") return groupDigits(v);
      if (u === "bytes") return fmtBytes(v) + (metric === "memory_growth_bytes_per_step" ? "/step" : "");
      return clusterValueText("ns", v * 1000);
    };
    const label = (m) => m.replace(/_(bytes|us)$|_bytes_per_step$/, "").replace(/_/g, " ");
    const outs = s.outliers || [];
    q(".cl-out").innerHTML = outs.length
      ? `<table class="cl-tab"><thead><tr><th>rank</th><th>what</th><th class="num">value</th><th class="num">score</th></tr></thead><tbody>${outs.map((o, k) =>
        `<tr data-k="${k}" title="${escapeHtml(o.path || "")}"><td>${o.rank == null ? "?" : o.rank}</td><td>${escapeHtml(o.category)}: ${escapeHtml(label(o.metric))}</td><td class="num">${fmt(o.metric, o.value)}</td><td class="num">${o.score == null ? "–" : o.score.toFixed(2)}</td></tr>`).join("")}</tbody></table>`
      : '<p class="muted">None: no rank is more than 3.5 robust deviations above the median of any figure, and none ran out of memory.</p>';
    q(".cl-out").addEventListener("click", (e) => {
      const tr = e.target.closest("tr[data-k]");
      if (!tr) return;
      const o = outs[+tr.dataset.k], i = d.rankNo.indexOf(o.rank);
      if (i >= 0) this.openRank(i, -1, outlierView(o));
    });
    const mets = s.metrics || {};
    const five = (k, list) => (list || []).map((x) => `${x.rank == null ? "?" : x.rank}: ${fmt(k, x.value)}`).join(", ");
    q(".cl-dig").innerHTML = `<table class="cl-tab cl-digt"><colgroup><col style="width:130px"><col style="width:56px"><col style="width:120px"><col style="width:92px"><col style="width:92px"><col style="width:120px"><col><col></colgroup><thead><tr><th></th><th class="num">ranks</th><th class="num">min (rank)</th><th class="num">p50</th><th class="num">p90</th><th class="num">max (rank)</th><th>highest five</th><th>lowest five</th></tr></thead><tbody>${Object.keys(mets).filter((k) => mets[k].ranks > 0).map((k) => {
      const g = mets[k];
      return `<tr><td>${escapeHtml(label(k))}</td><td class="num">${groupDigits(g.ranks)}</td><td class="num">${fmt(k, g.min)} (${g.min_rank ?? "?"})</td><td class="num">${fmt(k, g.p50)}</td><td class="num">${fmt(k, g.p90)}</td><td class="num">${fmt(k, g.max)} (${g.max_rank ?? "?"})</td><td class="cl-five">${escapeHtml(five(k, g.highest))}</td><td class="cl-five">${escapeHtml(five(k, g.lowest))}</td></tr>`;
    }).join("")}</tbody></table>`;
  }

  // Layout: label column, one column per step, one row per rank (or node), rows under a pixel merged.
  layout() {
    const c = this.el.querySelector(".cl-map"), d = this.data;
    const rows = clusterRows(d, this.def.key, this.byNode, this.perNode);
    const W = Math.max(320, (c.parentElement.clientWidth || 800) - 2), labW = 84, top = 22;
    const maxH = Math.max(240, Math.round((typeof innerHeight === "number" ? innerHeight : 900) * 0.7));
    const rowH = Math.max(1, Math.min(18, Math.floor((maxH - top) / Math.max(1, rows.n))));
    const H = top + Math.min(maxH - top, rows.n * rowH);
    const plotH = H - top, plotW = W - labW, colW = plotW / Math.max(1, d.nSteps);
    // rows per pixel row (>= 1): bins of consecutive rows
    const bins = Math.min(rows.n, Math.max(1, Math.floor(plotH / rowH)));
    return { c, rows, W, H, labW, top, plotH, plotW, colW, bins, binH: plotH / bins };
  }

  binRows(L, b) { // [first, last) rows of bin b
    const a = Math.floor(b * L.rows.n / L.bins), z = Math.max(a + 1, Math.floor((b + 1) * L.rows.n / L.bins));
    return [a, z];
  }

  // The highest value of a bin in step s, and the rank that holds it.
  binCell(L, b, s) {
    const [a, z] = this.binRows(L, b);
    let best = -1, who = -1;
    for (let i = a; i < z; i++) { const [v, r] = L.rows.cell(i, s); if (who < 0 || v > best) { best = v; who = r; } }
    return [best, who];
  }

  draw() {
    const L = this.layout(), d = this.data, c = L.c, dpr = (typeof devicePixelRatio === "number" && devicePixelRatio) || 1;
    this.L = L;
    c.width = Math.round(L.W * dpr); c.height = Math.round(L.H * dpr);
    c.style.width = L.W + "px"; c.style.height = L.H + "px";
    const g = c.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    const css = getComputedStyle(this.el), fg = css.getPropertyValue("--fg") || "#1d2330", muted = css.getPropertyValue("--muted") || "#5d6678", line = css.getPropertyValue("--line") || "#dde1e8";
    g.clearRect(0, 0, L.W, L.H);
    const sc = clusterScale(d[this.def.key]), lo = sc.from, hi = sc.to;
    this.scale = sc;
    // the cells, one pixel row bin at a time, by ImageData for speed
    const px0 = Math.round(L.labW * dpr), py0 = Math.round(L.top * dpr), pw = Math.max(1, c.width - px0), ph = Math.max(1, c.height - py0);
    const img = g.createImageData(pw, ph), data = img.data;
    const unit = this.def.unit;
    for (let b = 0; b < L.bins; b++) {
      const y0 = Math.round(b * L.binH * dpr), y1 = Math.max(y0 + 1, Math.round((b + 1) * L.binH * dpr));
      for (let s = 0; s < d.nSteps; s++) {
        const [v] = this.binCell(L, b, s);
        const x0 = Math.round(s * L.colW * dpr), x1 = Math.max(x0 + 1, Math.round((s + 1) * L.colW * dpr) - (L.colW > 6 ? 1 : 0));
        let rgb;
        if (!(v >= 0)) rgb = [160, 160, 160];
        else rgb = RAMP[Math.max(0, Math.min(255, Math.round(hi > lo ? (v - lo) / (hi - lo) * 255 : 128)))];
        const alpha = v >= 0 ? 255 : 40;
        for (let y = y0; y < y1 && y < ph; y++) {
          let o = (y * pw + x0) * 4;
          for (let x = x0; x < x1 && x < pw; x++, o += 4) { data[o] = rgb[0]; data[o + 1] = rgb[1]; data[o + 2] = rgb[2]; data[o + 3] = alpha; }
        }
      }
    }
    g.putImageData(img, px0, py0);
    // step labels on top (those that fit), row labels on the left (those that fit)
    g.fillStyle = muted;
    g.font = "11px system-ui, sans-serif";
    g.textBaseline = "middle";
    const every = Math.max(1, Math.ceil(60 / Math.max(1, L.colW)));
    for (let s = 0; s < d.nSteps; s += every) g.fillText(String(d.steps[s]), L.labW + s * L.colW + 2, L.top / 2);
    const lstep = Math.max(1, Math.ceil(14 / L.binH));
    for (let b = 0; b < L.bins; b += lstep) {
      const [a, z] = this.binRows(L, b);
      const text = z - a > 1 ? `${L.rows.label(a).replace(/^(rank|node) /, "")}–${L.rows.label(z - 1).replace(/^(rank|node) /, "")}` : L.rows.label(a);
      g.fillStyle = fg;
      g.fillText(text, 2, L.top + (b + 0.5) * L.binH);
    }
    // node boundaries (by rank), when rows are tall enough to see them
    if (!this.byNode && this.perNode > 1 && L.binH >= 2) {
      g.strokeStyle = line;
      g.beginPath();
      for (let b = 1; b < L.bins; b++) {
        const [a] = this.binRows(L, b), ra = d.rankNo[a], rp = d.rankNo[a - 1];
        if (ra >= 0 && rp >= 0 && Math.floor(ra / this.perNode) !== Math.floor(rp / this.perNode)) {
          const y = L.top + b * L.binH + 0.5;
          g.moveTo(L.labW, y); g.lineTo(L.W, y);
        }
      }
      g.stroke();
    }
    // the legend: the ramp's ends, and a line that says what the colours span
    const lg = this.el.querySelector(".cl-legend"), fmt = (v) => clusterValueText(unit, v);
    const pct = sc.med > 0 ? `a spread of ${+((sc.hi - sc.lo) / sc.med * 100).toPrecision(2)}% of the median` : "";
    const span = sc.med == null ? "" : sc.from < sc.lo || sc.to > sc.hi
      ? `The colours span at least ±${CLUSTER_MIN_SPAN * 100}% of the median (${fmt(sc.med)}), so that noise reads as one colour; ${fmt(sc.lo) === fmt(sc.hi) ? `the values all read ${fmt(sc.lo)}` : `the values run from ${fmt(sc.lo)} to ${fmt(sc.hi)}`}${pct ? ", " + pct : ""}.`
      : `The colours span the values, from the lowest to the highest${pct ? ` (${pct}, ${fmt(sc.med)})` : ""}.`;
    lg.innerHTML = `<span>${escapeHtml(this.def.label)}</span> <span class="muted">${fmt(lo)}</span>
      <i class="cl-ramp" style="background:linear-gradient(to right,${VIRIDIS.join(",")})"></i> <span class="muted">${fmt(hi)}</span>
      <span class="muted">· ${L.rows.n > L.bins ? `${groupDigits(L.rows.n)} ${this.byNode ? "nodes" : "ranks"} in ${groupDigits(L.bins)} pixel rows: each shows the highest` : `${groupDigits(L.rows.n)} ${this.byNode ? "nodes" : "ranks"}`}</span>
      <span class="cl-missing" title="no such step or figure">no data</span>${span ? `<span class="muted cl-span">${span}</span>` : ""}`;
  }

  at(e) {
    const L = this.L;
    if (!L) return null;
    const x = e.offsetX - L.labW, y = e.offsetY - L.top;
    // the far edges belong to the last cell: offsetX/Y are rounded, and with
    // a pixel row a rank the last row's lower half read as outside the plot
    if (x < 0 || y < 0 || x > L.plotW || y > L.plotH) return null;
    const s = Math.min(this.data.nSteps - 1, Math.floor(x / L.colW)), b = Math.min(L.bins - 1, Math.floor(y / L.binH));
    const [v, who] = this.binCell(L, b, s), [a, z] = this.binRows(L, b);
    return { s, b, v, who, a, z };
  }

  hover(e) {
    const h = this.at(e), tip = this.tip;
    if (!h) { tip.hidden = true; return; }
    const d = this.data, L = this.L, unit = this.def.unit;
    const rk = h.who >= 0 ? d.rankNo[h.who] : null, emb = d.embedded ? d.embedded[h.who] : 1;
    const rowsText = h.z - h.a > 1 ? `${groupDigits(h.z - h.a)} ${this.byNode ? "nodes" : "ranks"} (${L.rows.label(h.a)} – ${L.rows.label(h.z - 1)}): the highest is ` : "";
    tip.innerHTML = `${rowsText}<b>rank ${rk}</b>${this.byNode && h.z - h.a === 1 ? " of " + escapeHtml(L.rows.label(h.a)) : ""} · step ${escapeHtml(String(d.steps[h.s]))}<br>${escapeHtml(this.def.label)}: <b>${clusterValueText(unit, h.v)}</b>` +
      `${emb ? "" : '<br><span class="muted">summarised in this report</span>'}`;
    // beside the pointer, inside the window, off the hovered cell (tip.js)
    placeTip(tip, e, e.target, { x: L.labW + h.s * L.colW, y: L.top + h.b * L.binH, w: L.colW, h: L.binH });
  }

  click(e) {
    const h = this.at(e);
    if (!h || h.who < 0) return;
    this.openRank(h.who, h.s);
  }

  // Opens rank i (an index into the data's ranks) at step s (-1: as it is),
  // in view (default: the metric's).
  async openRank(i, s, view) {
    const d = this.data, app = this.app, msg = this.el.querySelector(".cl-msg");
    const k = d.slotOf ? d.slotOf[i] : i;
    if (d.embedded && !d.embedded[i]) {
      msg.innerHTML = `<p><b>Rank ${d.rankNo[i]}</b> is summarised in this report: its figures are in this view, its events are not (the report keeps the full data of the ranks that matter within its size budget). <code>memlens serve</code> has every rank; <code>memlens report --rank ${d.rankNo[i]}</code> writes this one.</p>`;
      return;
    }
    msg.innerHTML = "";
    const begin = s >= 0 ? d.begin[i * d.nSteps + s] : -1, dur = s >= 0 ? d.time[i * d.nSteps + s] : -1;
    // the window in the rank's own time base (served ranks each have theirs: known once loaded)
    const win = () => (begin >= 0 && dur > 0 ? [begin + (d.shift ? d.shift(k) : 0), begin + dur + (d.shift ? d.shift(k) : 0)] : null);
    await app.openRankAt(k, view || this.def.view, win);
    this.opened = (this.opened || 0) + 1;   // (a test waits for it)
  }

  hashExtra() { return { metric: this.metric !== "time" ? this.metric : null, rows: this.byNode ? "node" : null, per: this.byNode ? this.perNode : null }; }
  restore(p) {
    if (p.metric) this.metric = p.metric;
    this.byNode = p.rows === "node";
    if (p.per && +p.per >= 1) this.perNode = +p.per;
  }
  focusSearch() { return false; }
  closeDetail() { const m = this.el.querySelector(".cl-msg"); if (m && m.innerHTML) { m.innerHTML = ""; return true; } return false; }
}
