// htakernels.js — the Kernels view's panels from HolisticTraceAnalysis's
// analyses (perf.kernel_sequences and perf.cupti, web/DATA.md): the frequent
// kernel sequences under one operator (fusion candidates), each with a link
// that opens the Trace view on its first call, and, for traces recorded in
// CUPTI profiler mode, the hardware counters of every kernel with the
// operators that launched it (a sortable, searchable table; CSV/TSV).
//
//   hkPanels(el, app, rank, perf) draws both into el (nothing where the perf
//   object has no data for them) and wires their links.

import { escapeHtml, groupDigits } from "./format.js";
import { pvNs, pvOpenCall, pvFlash } from "./perfview.js";
import { PerfTable, ptCopy, ptDownload } from "./perftable.js";

// A count with an SI prefix: "18.26 G", "524.3 k", "0".
export function hkSi(v) {
  if (v == null || !isFinite(v)) return "–";
  const pre = ["", " k", " M", " G", " T", " P", " E"];
  let e = 0;
  while (Math.abs(v) >= 1000 && e < 6) { v /= 1000; e++; }
  return e ? `${+v.toPrecision(4)}${pre[e]}` : String(Math.round(v));
}

// The short name of a counter: "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum" -> "ffma".
export function hkCounterLabel(name) {
  const m = /^smsp__sass_thread_inst_executed_op_(\w+?)_pred_on\.sum$/.exec(name);
  return m ? m[1] : name;
}

function hkSeqHtml(ks) {
  if (!ks || !ks.top || !ks.top.length) return "";
  const rows = ks.top.map((q, k) => {
    const li = (x) => `<li title="${escapeHtml(x)}">${escapeHtml(x)}</li>`;
    const kern = q.kernels.length <= 8 ? q.kernels.map(li).join("")
      : q.kernels.slice(0, 6).map(li).join("") + `<li class="hk-more"><details><summary>${q.kernels.length - 6} more</summary><ol start="7">${q.kernels.slice(6).map(li).join("")}</ol></details></li>`;
    return `<tr><td class="num">${groupDigits(q.count)}</td><td class="num">${escapeHtml(pvNs(q.gpu_ns))}</td><td class="num">${escapeHtml(pvNs(q.cpu_ns))}</td>` +
      `<td><b>${escapeHtml(q.op)}</b> <span class="muted">· ${q.kernels.length} GPU events</span>` +
      (q.example ? ` <a class="hk-call" href="#" data-k="${k}" title="open the Trace view on its first call">first call ↗</a>` : "") +
      `<ol class="hk-kern">${kern}</ol></td></tr>`;
  }).join("");
  return `<section class="panel hk-seqs"><div class="bar"><h2>Frequent kernel sequences</h2>
      <span class="muted">the same GPU work launched under one operator, ${groupDigits(ks.top.length)} of ${groupDigits(ks.patterns)} pattern${ks.patterns === 1 ? "" : "s"} over ${groupDigits(ks.roots)} call${ks.roots === 1 ? "" : "s"}: candidates for fusion (HTA's get_frequent_cuda_kernel_sequences)</span></div>
    <table class="hk-table"><thead><tr><th class="num">Count</th><th class="num" title="the GPU events' durations, summed over the calls">GPU time</th><th class="num" title="the operator calls' durations, summed">CPU time</th><th>Operator and its GPU work in launch order</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

// The counters the table shows as columns: at most HK_CUPTI_SHOWN, those on
// the most kernels (ties: the first the trace gives), in the trace's order, as
// perf's text lists them (cupti.h ml_cupti_shown): a trace may give each kernel
// counter names of its own, and a column a name would not fit.  The rest are in
// `memlens perf --json`.
const HK_CUPTI_SHOWN = 8;
export function hkCuptiShown(cu) {
  const n = cu.counters.length;
  const all = [...Array(n).keys()];
  if (n <= HK_CUPTI_SHOWN) return all;
  const kernels = new Array(n).fill(0);
  for (const r of cu.rows) for (const k of Object.keys(r.values)) kernels[+k]++;
  const pick = all.slice().sort((a, b) => kernels[b] - kernels[a] || a - b).slice(0, HK_CUPTI_SHOWN);
  return pick.sort((a, b) => a - b);
}

function hkCuptiHtml(cu) {
  if (!cu || !cu.rows) return "";
  const shown = hkCuptiShown(cu).length, more = cu.counters.length - shown;
  const left = more ? `; the ${shown} on the most kernels shown, ${groupDigits(more)} more in <code>memlens perf --json</code>` : "";
  const note = cu.paired ? "" : ` <span class="warn">${groupDigits(cu.launches)} cudaLaunchKernel calls for ${groupDigits(cu.kernels)} kernels: which operator launched each is unknown.</span>`;
  return `<section class="panel hk-cupti"><div class="bar"><h2>CUPTI counters</h2>
      <span class="muted">${groupDigits(cu.kernels)} kernels measured in CUPTI profiler mode, ${groupDigits(cu.counters.length)} counters${left}${cu.flops ? "; FLOPs from the SASS instruction counters (an fma counts 2)" : ""}</span>${note}
      <input type="search" class="hk-search" placeholder="search kernels or operators" size="26"><span class="spacer"></span>
      <button class="hk-copy">Copy TSV</button><button class="hk-csv">Download CSV</button></div>
    <div class="pv-table hk-ctable"></div></section>`;
}

const HK_CSS = `
.hk-table { width: 100%; border-collapse: collapse; font-size: var(--fs-sm); }
.hk-table th, .hk-table td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
.hk-table .num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.hk-kern { margin: 4px 0 0; padding-left: 22px; font-family: ui-monospace, monospace; font-size: var(--fs-xs); }
.hk-kern li { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; max-width: 110ch; }
.hk-kern li.hk-more { list-style: none; margin-left: -22px; }
.hk-kern details ol { padding-left: 22px; margin: 0; }
.hk-kern summary { cursor: pointer; color: var(--accent); font-family: system-ui, sans-serif; }
.hk-seqs, .hk-cupti { margin-top: 12px; }
`;

function hkInjectCss(doc) {
  if (doc.getElementById("hk-css")) return;
  const s = doc.createElement("style");
  s.id = "hk-css";
  s.textContent = HK_CSS;
  doc.head.appendChild(s);
}

export function hkPanels(el, app, rank, perf) {
  hkInjectCss(el.ownerDocument);
  const ks = perf && perf.kernel_sequences, cu = perf && perf.cupti;
  el.innerHTML = hkSeqHtml(ks) + hkCuptiHtml(cu);
  el.querySelectorAll("a.hk-call").forEach((a) => a.addEventListener("click", (e) => {
    e.preventDefault();
    const q = ks.top[+a.dataset.k];
    pvOpenCall(app, rank, q.op, q.example[0], q.example[1]);
  }));
  if (!cu || !cu.rows) return null;
  const cols = [
    { key: "i", label: "#", num: true, width: 56, fmt: (v) => groupDigits(v) },
    { key: "name", label: "Kernel", minWidth: 260, cls: "name" },
    { key: "top", label: "Top operator", width: 170, cls: "name", get: (r) => (r.stack.length ? r.stack[0] : null), fmt: (v) => (v == null ? "–" : v) },
    { key: "bottom", label: "Bottom operator", width: 190, cls: "name", get: (r) => (r.stack.length ? r.stack[r.stack.length - 1] : null), fmt: (v) => (v == null ? "–" : v) },
  ];
  if (cu.flops) cols.push({ key: "flops", label: "FLOPs", num: true, width: 92, fmt: hkSi });
  for (const k of hkCuptiShown(cu)) {
    const c = cu.counters[k];
    cols.push({ key: "c" + k, label: hkCounterLabel(c), title: c, num: true, width: 84,
      get: (r) => r.values[k], fmt: hkSi, csv: (r) => (r.values[k] == null ? "" : r.values[k]) });
  }
  const rows = cu.rows.map((r, i) => ({ ...r, i: i + 1 }));
  const table = new PerfTable(el.querySelector(".hk-ctable"), cols, { sort: "i", dir: 1, rowHeight: 24, maxHeight: 420, empty: "No kernels.",
    rowKey: (r) => String(r.i) });
  table.setRows(rows);
  const search = el.querySelector(".hk-search");
  let tm = 0;
  for (const ev of ["input", "search"]) search.addEventListener(ev, () => { clearTimeout(tm); tm = setTimeout(() => table.setFilter(search.value), 150); });
  el.querySelector(".hk-copy").addEventListener("click", async (e) => pvFlash(e.target, await ptCopy(table.exportText("tsv"))));
  el.querySelector(".hk-csv").addEventListener("click", () => ptDownload(table.exportText("csv"), `memlens-cupti-rank${rank}.csv`));
  return table;
}
