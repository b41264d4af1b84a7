// kernels.js — the Kernels view: the GPU kernels of perf.kernels
// (web/DATA.md), grouped by name or by name + the operator that launched
// them, with calls, total/mean/min/max time, blocks per SM, occupancy and
// whether they ran on Tensor Cores; the detail panel names the operators a
// kernel came from (links to the Operators view) and draws the histogram of
// its calls' durations, with the slowest calls linked to the Trace view.
// Below the table, HTA's GPU-time panels (gputime.js): idle time by cause,
// kernel types with overlaps, launch statistics with the launch-delay
// histogram and the outliers (linked to the Trace view), queues, bandwidth;
// and HTA's frequent kernel sequences and CUPTI counters (htakernels.js).

import { escapeHtml, groupDigits, OKABE_ITO } from "./format.js";
import { PerfTableView, pvNs, pvInt, pvPct, pvPerCall } from "./perfview.js";
import { gtIdle, gtKernelTypes, gtLaunches, gtQueues, gtBind } from "./gputime.js";
import { hkPanels } from "./htakernels.js";

export function kernelColumns(group, perf) {
  let tot = 0;
  for (const k of perf.kernels.by_name) tot += k.total_ns || 0;
  tot = tot || 1;
  const cols = [{ key: "name", label: group === "core" ? "Accelerator Core" : "Name", minWidth: 340, cls: "name" }];
  const tc = (perf.accelerator || {}).tensor_cores !== false; // an NPU has AI Cores, not Tensor Cores
  if (group === "op") cols.push({ key: "op", label: "Operator", width: 200, cls: "name", fmt: (v) => v == null ? "(no operator)" : v });
  cols.push(
    { key: "calls", label: "Calls", num: true, width: 76, fmt: pvInt },
    { key: "total_ns", label: "Total", num: true, width: 96, fmt: pvNs },
    { key: "share", label: "Share", title: "share of all kernels' time", num: true, width: 80, get: (r) => (r.total_ns || 0) / tot, fmt: (v) => pvPct(v),
      csv: (r) => ((r.total_ns || 0) / tot).toFixed(6) },
    { key: "mean_ns", label: "Mean", num: true, width: 86, fmt: pvNs },
    { key: "min_ns", label: "Min", num: true, width: 86, fmt: pvNs },
    { key: "max_ns", label: "Max", num: true, width: 86, fmt: pvNs },
    { key: "blocks_per_sm", label: "Blocks/SM", title: "mean blocks per SM (grid size over the SM count)", num: true, width: 96, fmt: (v) => (v == null ? "–" : (+v).toFixed(2)) },
    { key: "occupancy", label: "Occupancy", title: "mean estimated achieved occupancy, %", num: true, width: 104, fmt: (v) => (v == null ? "–" : (+v).toFixed(1) + " %") },
  );
  if (tc) cols.push(
    { key: "tensor_cores", label: "Tensor Cores", title: "whether the kernel uses Tensor Cores", num: true, width: 116, chart: false,
      get: (r) => (r.tensor_cores ? 1 : 0), fmt: (v) => (v ? "yes" : "no"), csv: (r) => (r.tensor_cores ? "yes" : "no") },
  );
  return cols;
}

function kernelRowKey(r, group) { return group === "op" ? r.name + "\u2003" + (r.op == null ? "" : r.op) : r.name; }

// min — mean — max of a kernel's calls, on a shared axis (SVG).
function kernelRange(r) {
  if (r.min_ns == null || r.max_ns == null) return "";
  const W = 300, H = 34, x = (v) => 8 + (W - 16) * (r.max_ns > 0 ? v / r.max_ns : 0);
  return `<svg class="pv-range" viewBox="0 0 ${W} ${H}" width="100%" height="${H}" role="img" aria-label="duration range">` +
    `<title>duration per call: min ${pvNs(r.min_ns)}, mean ${pvNs(r.mean_ns)}, max ${pvNs(r.max_ns)}</title>` +
    `<line x1="${x(0)}" x2="${x(r.max_ns)}" y1="12" y2="12" class="axis"/>` +
    `<rect x="${x(r.min_ns)}" y="6" width="${Math.max(1, x(r.max_ns) - x(r.min_ns))}" height="12" rx="2" fill="${OKABE_ITO[4]}" opacity=".55"/>` +
    `<line x1="${x(r.mean_ns)}" x2="${x(r.mean_ns)}" y1="3" y2="21" stroke="${OKABE_ITO[5]}" stroke-width="2.5"/>` +
    `<text x="${x(r.min_ns)}" y="32" class="lab">${pvNs(r.min_ns)}</text><text x="${x(r.max_ns)}" y="32" class="lab" text-anchor="end">${pvNs(r.max_ns)}</text></svg>`;
}

export function kernelDetail(r, perf, group) {
  let h = `<dl><dt>Name</dt><dd class="mono">${escapeHtml(r.name)}</dd>`;
  if (group === "op") h += `<dt>Operator</dt><dd>${r.op == null ? "(no operator)" : escapeHtml(r.op)}</dd>`;
  h += `<dt>Calls</dt><dd>${groupDigits(r.calls)}</dd><dt>Total</dt><dd>${pvNs(r.total_ns)}</dd>` +
    `<dt>Per call</dt><dd>mean ${pvNs(r.mean_ns)}, min ${pvNs(r.min_ns)}, max ${pvNs(r.max_ns)}</dd>` +
    `<dt>Blocks/SM</dt><dd>${r.blocks_per_sm == null ? '<span class="unknown">not in the trace</span>' : (+r.blocks_per_sm).toFixed(2)}</dd>` +
    `<dt>Occupancy</dt><dd>${r.occupancy == null ? '<span class="unknown">not in the trace</span>' : (+r.occupancy).toFixed(1) + " %"}</dd>` +
    ((perf.accelerator || {}).tensor_cores === false ? "" : `<dt>Tensor Cores</dt><dd>${r.tensor_cores ? "yes" : "no"}</dd>`) + "</dl>";
  // the histogram of the calls' durations and the slowest calls (older perf objects: the min–max range)
  h += r.hist ? pvPerCall(r, { mean: r.mean_ns, title: "Duration per call" })
    : `<h3>Duration per call <span class="lg"><i style="background:${OKABE_ITO[4]};opacity:.55"></i>min–max</span> <span class="lg"><i style="background:${OKABE_ITO[5]}"></i>mean</span></h3>` + kernelRange(r);
  if (group === "core") return h; // a core runs the tasks of many operators: the names' rows say which
  const ops = perf.kernels.by_op.filter((x) => x.name === r.name);
  h += `<h3>Launched by (${ops.length} operator${ops.length === 1 ? "" : "s"})</h3>`;
  if (!perf._opNames) perf._opNames = new Set(perf.operators.by_name.map((o) => o.name));
  h += ops.length ? '<div class="ov">' + ops.sort((a, b) => b.total_ns - a.total_ns).map((x) => x.op == null || !perf._opNames.has(x.op)
    ? `<span class="muted" title="${x.op == null ? "" : "not in the operators table (an annotation, not a cpu_op)"}">${x.op == null ? "(no operator)" : escapeHtml(x.op)} · ${groupDigits(x.calls)}× · ${pvNs(x.total_ns)}</span>`
    : `<a data-go="operators" data-sel="${escapeHtml(x.op)}">${escapeHtml(x.op)} · ${groupDigits(x.calls)}× · ${pvNs(x.total_ns)}</a>`).join("") + "</div>"
    : '<p class="muted">No operator launched it in this trace (or the trace has no CPU operators).</p>';
  return h;
}

export class KernelsView extends PerfTableView {
  constructor(el, app) {
    super(el, app, {
      title: "Kernels", file: "kernels",
      groups: [{ id: "name", label: "name" }, { id: "op", label: "name + operator" }, { id: "core", label: "Accelerator Core" }],
      placeholder: "search kernels (e.g. gemm)",
      metric: { key: "total_ns", label: "Total" },
      columns: kernelColumns,
      rows: (perf, g) => (g === "op" ? perf.kernels.by_op : g === "core" ? perf.kernels.by_core || [] : perf.kernels.by_name),
      rowKey: kernelRowKey,
      label: (r, g) => String(r.name).replace(/^void /, "") + (g === "op" && r.op ? " · " + r.op : ""),
      detail: kernelDetail,
      others: (perf, g) => (perf.kernels.others || {})[g === "op" ? "by_op" : "by_name"] || null,
      empty: "This trace has no GPU kernels (a CPU-only profile).",
    });
    this.gt = document.createElement("div");
    this.gt.className = "gt-grid";
    el.appendChild(this.gt);
  }

  async show(rank) {
    // a trace in CUPTI profiler mode has counters but no kernel times: the table says so
    const p = await this.app.perfOf(rank);
    this.cfg.empty = p && p.cupti && !p.kernels.by_name.length
      ? "No kernel times: the trace was recorded in CUPTI profiler mode. Its kernels' hardware counters are below."
      : "This trace has no GPU kernels (a CPU-only profile).";
    await super.show(rank);
    // NPU tasks by Accelerator Core (AI_CORE, AI_VECTOR_CORE, AI_CPU, HCCL), as MindStudio Insight's operator view
    const core = this.el.querySelector('.pv-group option[value="core"]');
    if (core) core.hidden = !(this.perf && (this.perf.kernels.by_core || []).length);
    const g = this.perf && this.perf.gputime;
    if (this.gtOf !== g) this.showGputime(rank, g);
    const perf = this.perf;
    if (!this.hta) { this.hta = document.createElement("div"); this.hta.className = "hk-mount"; this.el.appendChild(this.hta); }
    if (this.htaFor === perf) return;
    this.htaFor = perf;
    this.cuptiTable = perf ? hkPanels(this.hta, this.app, rank, perf) : (this.hta.innerHTML = "", null);
  }

  // HTA's GPU-time panels of perf.gputime g (gputime.js).
  showGputime(rank, g) {
    this.gtOf = g;
    this.gt.hidden = !g;
    if (!g) { this.gt.innerHTML = ""; return; }
    const note = g.last_step_cut ? '<span class="muted">the last ProfilerStep# left out, as HTA does</span>' : "";
    const queues = gtQueues(g);
    this.gt.innerHTML =
      `<section class="panel gt-kt" id="kn-types"><div class="bar"><h2>Kernel types</h2><span class="muted">time with each combination busy, overlaps apart (HolisticTraceAnalysis)</span></div>${gtKernelTypes(g) || '<p class="muted">No computation, communication or memory kernels.</p>'}${gtIdle(g, (this.perf && this.perf.accelerator || {}).device)}` +
      (queues ? `<h3 id="kn-queues">Launch queue and bandwidth</h3>${queues}` : "") + "</section>" +
      `<section class="panel gt-launch" id="kn-launches"><div class="bar"><h2>Kernel launches</h2>${note}</div>${gtLaunches(g, (this.perf && this.perf.accelerator || {}).device)}</section>`;
    gtBind(this.gt, this.app, rank);
  }
}
