// distributed.js — the Distributed view: per rank, the step time split into
// computation, communication, their overlap and other (perf.distributed,
// web/DATA.md; the steps of every rank loaded, averaged or for one step),
// each rank's communication/computation overlap as HolisticTraceAnalysis
// measures it (perf.gputime), the ranks that start their collectives late
// (stragglers.js), and the collective operations table of the rank shown.

import { escapeHtml, groupDigits, fmtBytes } from "./format.js";
import { pvNs, pvPct, pvWhy, pvNoPerf, pvFlash } from "./perfview.js";
import { PerfTable, ptCopy, ptDownload } from "./perftable.js";
import { sgPanel } from "./stragglers.js";

// The parts of a step as the analyses count them (distributed.h): computation and
// communication each include their overlap; other = step + overlap - both.
export const DIST_PARTS = [
  { key: "computation_ns", label: "Computation", colour: "#0072B2" },
  { key: "overlap_ns", label: "Overlap", colour: "#009E73" },
  { key: "communication_ns", label: "Communication", colour: "#CC79A7" },
  { key: "other_ns", label: "Other", colour: "#999999" },
];

// The segments drawn, which add up to the step: computation and communication
// without their overlap, the overlap once, other.
export function distSegments(r) {
  const ov = r.overlap_ns || 0;
  return [
    { part: DIST_PARTS[0], v: Math.max(0, (r.computation_ns || 0) - ov), label: "Computation only" },
    { part: DIST_PARTS[1], v: ov, label: "Overlap (communication during computation)" },
    { part: DIST_PARTS[2], v: Math.max(0, (r.communication_ns || 0) - ov), label: "Communication only" },
    { part: DIST_PARTS[3], v: r.other_ns || 0, label: "Other" },
  ];
}

// Per rank: the mean of each part over its steps (step: one step's name, or null for all).
export function distByRank(stepRows, step) {
  const acc = new Map();
  for (const s of stepRows) {
    if (step && s.step !== step) continue;
    let a = acc.get(s.rank);
    if (!a) { a = { rank: s.rank, n: 0 }; for (const p of DIST_PARTS) a[p.key] = 0; acc.set(s.rank, a); }
    a.n++;
    for (const p of DIST_PARTS) a[p.key] += s[p.key] || 0;
  }
  const out = [...acc.values()].sort((x, y) => x.rank - y.rank);
  for (const a of out) for (const p of DIST_PARTS) a[p.key] = a[p.key] / (a.n || 1);
  return out;
}

function distBars(rows, slowest, width) {
  const W = Math.max(500, width || 900), rowH = 26, L = 90, R = 90, H = rows.length * rowH + 6;
  const tot = (r) => distSegments(r).reduce((a, x) => a + x.v, 0);
  const max = Math.max(1, ...rows.map(tot));
  let g = "";
  rows.forEach((r, k) => {
    const y = 4 + k * rowH, t = tot(r);
    let x = L;
    g += `<text x="${L - 8}" y="${y + 15}" text-anchor="end" class="lab${r.rank === slowest ? " warn" : ""}">rank ${r.rank}${r.rank === slowest ? " ▲" : ""}</text>`;
    for (const sgm of distSegments(r)) {
      const w = ((W - L - R) * sgm.v) / max;
      if (w > 0) g += `<rect x="${x.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${rowH - 6}" fill="${sgm.part.colour}"><title>rank ${r.rank} · ${sgm.label}: ${pvNs(sgm.v)} (${pvPct(sgm.v / (t || 1))}) · computation ${pvNs(r.computation_ns)}, communication ${pvNs(r.communication_ns)} in all</title></rect>`;
      x += w;
    }
    g += `<text x="${(x + 6).toFixed(1)}" y="${y + 15}" class="lab">${pvNs(t)}</text>`;
  });
  return `<svg class="pv-dist" viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="step time per rank">${g}</svg>`;
}

// Each rank's share of communication time under computation (HTA's get_comm_comp_overlap).
export function distOverlapTable(rows) {
  if (!rows.length) return "";
  rows.sort((a, b) => a.rank - b.rank);
  return `<p class="pv-dist-cap"><b>Communication under computation</b> <span class="muted">per rank, as HolisticTraceAnalysis measures it: the share of the communication kernels' time during which computation kernels ran too</span></p><table class="pv-dist-overlap" id="dist-overlap"><thead><tr><th>rank</th><th>overlap</th><th>communication</th></tr></thead><tbody>` +
    rows.map((r) => `<tr data-rank="${r.rank}"><td>rank ${escapeHtml(String(r.rank))}</td><td>${pvPct(r.ratio, 2)}</td><td>${pvNs(r.comm)}</td></tr>`).join("") + "</tbody></table>";
}

const COLLECTIVE_RE = /nccl|AllReduce|AllGather|ReduceScatter|Broadcast|SendRecv|AllToAll|gloo|c10d::/i;

// Without the analyses' distributed object: each rank's steps from its step
// breakdown (computation = kernels + memcpy + memset; communication = the
// collective time not hidden behind them, as the breakdown counts it; the
// overlap not separated: null), and the collective kernels of its kernel table.
export function distFromSteps(perf, rankNo) {
  const steps = (perf.steps || []).map((s) => {
    const comp = (s.kernel_ns || 0) + (s.memcpy_ns || 0) + (s.memset_ns || 0), comm = s.communication_ns || 0;
    return { rank: rankNo, step: s.name, computation_ns: comp, communication_ns: comm, overlap_ns: null, other_ns: Math.max(0, (s.total_ns || 0) - comp - comm) };
  });
  const collectives = ((perf.kernels || {}).by_name || []).filter((k) => COLLECTIVE_RE.test(k.name))
    .map((k) => ({ name: k.name, calls: k.calls, bytes: null, total_ns: k.total_ns, mean_ns: k.mean_ns }));
  const comm = steps.reduce((a, s) => a + s.communication_ns, 0) + collectives.reduce((a, k) => a + (k.total_ns || 0), 0);
  return comm > 0 ? { backend: "", world_size: 0, steps, collectives, slowest_rank: null, derived: true } : null;
}

// The collectives table's first columns: the rank and the process group's
// size, each when the rows need it to be told apart (several ranks; the same
// collective in groups of several sizes, or any size recorded).
export function collColumns(colls) {
  const cols = [];
  if (new Set(colls.map((c) => c.rank)).size > 1)
    cols.push({ key: "rank", label: "Rank", num: true, width: 70, fmt: (v) => (v == null ? "–" : String(v)) });
  if (colls.some((c) => c.group_size != null))
    cols.push({ key: "group_size", label: "Group size", title: "ranks in the collective's process group (the trace's \"Group size\")", num: true, width: 100, fmt: (v) => (v == null ? "–" : groupDigits(v)) });
  return cols;
}

// " (rank 3)" when the rows are one rank's, " (2 ranks)" when several.
export function collTitle(colls, rankNo) {
  const n = new Set(colls.map((c) => c.rank)).size;
  return n > 1 ? ` (${n} ranks)` : ` (rank ${escapeHtml(String(colls.length ? colls[0].rank ?? rankNo : rankNo))})`;
}

export class DistributedView {
  constructor(el, app) {
    this.el = el;
    this.app = app;
    this.rank = -1;
    this.step = "";
  }

  async show(rank) {
    const perf = await this.app.perfOf(rank);
    this.rank = rank;
    this.perf = perf;
    if (!perf) { pvWhy(this.el, "No distributed data in this input", pvNoPerf(this.app.meta.ranks[rank])); this.table = null; return; }
    // every rank's steps: from each rank's perf object (loaded ones), de-duplicated
    const rows = [], seen = new Set(), overlaps = [];
    let backend = "", world = 0, slowest = null, derived = false;
    for (let k = 0; k < this.app.meta.ranks.length; k++) {
      const p = k === rank ? perf : await this.app.perfOf(k, true);
      const rk = this.app.meta.ranks[k], rankNo = rk && rk.rank >= 0 ? rk.rank : k;
      const d = p && (p.distributed || distFromSteps(p, rankNo));
      const g = p && p.gputime;
      if (g && g.comm_comp_overlap != null) overlaps.push({ rank: rankNo, ratio: g.comm_comp_overlap, comm: g.comm_ns });
      if (d && d.derived) derived = true;
      if (!d) continue;
      backend = backend || d.backend || "";
      world = Math.max(world, d.world_size || 0);
      if (k === rank || slowest == null) slowest = d.slowest_rank ?? slowest;
      for (const s of d.steps || []) {
        const key = s.rank + "/" + s.step;
        if (!seen.has(key)) { seen.add(key); rows.push(s); }
      }
    }
    const d = perf.distributed || distFromSteps(perf, (this.app.meta.ranks[rank] || {}).rank ?? rank);
    if (derived && slowest == null && rows.length) {   // the rank whose steps take longest on average
      const by = distByRank(rows, "");
      const len = (r) => distSegments(r).reduce((x, sg) => x + sg.v, 0);
      slowest = by.reduce((a, r) => (len(r) > len(a) ? r : a)).rank;
    }
    if (world === 0) world = Math.max(0, ...this.app.meta.ranks.map((r) => r.world_size || 0));
    if (!d && !rows.length) {
      const comm = (perf.step_average || {}).communication_ns;
      pvWhy(this.el, "No distributed breakdown for this rank", comm > 0
        ? `The trace communicates (${pvNs(comm)} of collective kernels per step on average, in the Overview's breakdown), but the analyses give no per-rank split of it.`
        : "The trace records no collective communication (no NCCL/Gloo kernels or c10d operators).",
        "Profile each rank of a torch.distributed job (one trace per rank), then <code>memlens report DIR</code> with the folder of traces: this view compares the ranks.");
      this.table = null;
      return;
    }
    const unloaded = this.app.meta.ranks.filter((r) => r.loaded === false).length;   // served: not imported yet
    const steps = [...new Set(rows.map((s) => s.step))];
    if (this.step && !steps.includes(this.step)) this.step = "";
    this.rows = rows;
    this.slowest = slowest;
    const colls = (d && d.collectives) || [], rankNo = (this.app.meta.ranks[rank] || {}).rank ?? rank;
    this.el.innerHTML = `<section class="panel"><div class="bar"><h2>Step time per rank</h2>
        <span class="muted">${escapeHtml(backend || (derived ? "backend not recorded" : "backend unknown"))}${world ? ` · world size ${world}` : ""} · ${groupDigits(new Set(rows.map((s) => s.rank)).size)} rank(s) with data</span>
        ${unloaded ? `<button class="pv-loadall" title="memlens serve imports ranks when first asked">Load the other ${unloaded} rank${unloaded > 1 ? "s" : ""}</button>` : ""}
        <label class="sel">step <select class="pv-step"><option value="">average of all steps</option>${steps.map((s) => `<option${s === this.step ? " selected" : ""}>${escapeHtml(s)}</option>`).join("")}</select></label>
        <span class="spacer"></span>${DIST_PARTS.map((p) => `<span class="lg"><i style="background:${p.colour}"></i>${p.label}</span>`).join(" ")}</div>
        <div class="pv-distbars"></div>
        <div class="hint muted">${derived ? "From each rank's step breakdown: computation is kernels, memcpy and memset; communication the collective time not hidden behind them; the overlap is not separated. " : "Computation and communication are drawn without their overlap (communication that ran while a kernel computed), drawn once between them; the tooltips give each in all. "}${slowest != null ? `▲ slowest rank: ${slowest}.` : ""}</div>${distOverlapTable(overlaps)}</section>
      ${sgPanel(perf.distributed)}
      <section class="panel pv-main"><div class="bar"><h2>Collective operations${collTitle(colls, rankNo)}</h2>
        <input type="search" class="pv-search" placeholder="search collectives" size="24"><span class="spacer"></span>
        <button class="pv-copy">Copy TSV</button><button class="pv-csv">Download CSV</button></div><div class="pv-table pv-coll"></div></section>`;
    const q = (s) => this.el.querySelector(s);
    if (q(".pv-loadall")) q(".pv-loadall").addEventListener("click", async (e) => {
      e.target.disabled = true;
      for (let k = 0; k < this.app.meta.ranks.length; k++) {
        if (this.app.meta.ranks[k].loaded !== false) continue;
        e.target.textContent = `Loading rank ${k}…`;
        await this.app.loadRank(k);
      }
      this.show(rank);
    });
    q(".pv-step").addEventListener("change", (e) => { this.step = e.target.value; this.drawBars(); });
    this.drawBars();
    this.search = q(".pv-search");
    this.table = new PerfTable(q(".pv-coll"), collColumns(colls).concat([
      { key: "name", label: "Name", cls: "name" },
      { key: "calls", label: "Calls", num: true, width: 90, fmt: (v) => groupDigits(v) },
      { key: "bytes", label: "Bytes", num: true, width: 110, fmt: (v) => (v == null ? "–" : fmtBytes(v)) },
      { key: "total_ns", label: "Total", num: true, width: 110, fmt: pvNs },
      { key: "mean_ns", label: "Mean", num: true, width: 110, fmt: pvNs },
      { key: "bw", label: "Bandwidth", title: "bytes over total time", num: true, width: 120, get: (r) => (r.bytes && r.total_ns ? r.bytes / (r.total_ns / 1e9) : null),
        fmt: (v) => (v == null ? "–" : fmtBytes(v) + "/s") },
    ]), { sort: "total_ns", dir: -1, empty: "No collective operations in this rank." });
    this.table.setRows(colls);
    let tm = 0;
    for (const ev of ["input", "search"]) this.search.addEventListener(ev, () => { clearTimeout(tm); tm = setTimeout(() => this.table.setFilter(this.search.value), 150); });
    q(".pv-copy").addEventListener("click", async (e) => pvFlash(e.target, await ptCopy(this.table.exportText("tsv"))));
    q(".pv-csv").addEventListener("click", () => ptDownload(this.table.exportText("csv"), `memlens-collectives-rank${rank}.csv`));
  }

  drawBars() { const el = this.el.querySelector(".pv-distbars"); el.innerHTML = distBars(distByRank(this.rows, this.step), this.slowest, el.clientWidth); }
  focusSearch() { if (!this.search || !this.table) return false; this.search.focus(); return true; }
  closeDetail() { return false; }
  hashExtra() { return { step: this.step || null }; }
  restore(p) { this.step = p.step || ""; }
}
