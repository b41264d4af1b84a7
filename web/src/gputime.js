// gputime.js — the panels of HolisticTraceAnalysis's GPU-time analyses of a
// rank (perf.gputime, web/DATA.md): the temporal breakdown and idle time by
// cause (Overview), kernel types with overlaps, the launch-delay histogram
// and the launch outliers with links into the Trace view, the launch queue
// and memory bandwidth (Kernels), and the step series the Trace view draws as
// counter tracks (queue length per stream, bandwidth per kind of copy).

import { escapeHtml, groupDigits, plural } from "./format.js";
import { pvNs, pvPct, pvHistogram, pvOpenCall } from "./perfview.js";
import { m4Build } from "./m4.js";

export const GT_TEMPORAL = [
  { key: "compute_ns", label: "Compute", colour: "#0072B2", title: "computation kernels running (their union)" },
  { key: "non_compute_ns", label: "Non-compute", colour: "#E69F00", title: "only memory copies, communication or syncs running" },
  { key: "idle_ns", label: "Idle", colour: "#BBBBBB", title: "no GPU event running" },
];
export const GT_IDLE = [
  { key: "host_wait_ns", label: "Host wait", colour: "#D55E00", title: "the next kernel was launched after the previous one ended: the CPU was late" },
  { key: "kernel_wait_ns", label: "Kernel wait", colour: "#56B4E9", title: "a gap under the threshold between back-to-back kernels: launch overhead" },
  { key: "other_ns", label: "Other", colour: "#999999", title: "any other gap (synchronisation, waiting on another stream …)" },
];
const GT_TYPE_COLOURS = { COMPUTATION: "#0072B2", COMMUNICATION: "#CC79A7", MEMORY: "#E69F00" };
const GT_OUTLIERS = [
  { key: "short_kernels", label: "Short kernels", what: (c) => `the launching call took at most ${pvNs(c)} and the kernel less than the call` },
  { key: "runtime_outliers", label: "Runtime outliers", what: (c) => `the launching call took over ${pvNs(c)}` },
  { key: "launch_delay_outliers", label: "Launch-delay outliers", what: (c) => `the kernel started over ${pvNs(c)} after its launching call ended` },
];

const gtLegend = (parts) => parts.map((p) => `<span class="lg" title="${escapeHtml(p.title || "")}"><i style="background:${p.colour}"></i>${p.label}</span>`).join(" ");

// One horizontal bar split into parts [{v, colour, label}] over total.
function gtStackBar(parts, total, cls) {
  const t = total || parts.reduce((a, p) => a + p.v, 0) || 1;
  return `<div class="gt-bar ${cls || ""}">` + parts.filter((p) => p.v > 0).map((p) =>
    `<i style="width:${(100 * p.v / t).toFixed(3)}%;background:${p.colour}" title="${escapeHtml(`${p.label}: ${pvNs(p.v)} (${pvPct(p.v / t)})`)}"></i>`).join("") + "</div>";
}

// The temporal breakdown: span = compute + non-compute + idle.
export function gtTemporal(g, dev = "GPU") {
  const t = g && g.temporal;
  if (!t) return "";
  const parts = GT_TEMPORAL.map((p) => ({ ...p, v: t[p.key] || 0 }));
  return `<div class="gt-temporal">${gtStackBar(parts, t.span_ns, "gt-big")}` +
    `<table class="pv-legend gt-tlegend"><tbody>${parts.map((p) => `<tr data-key="${p.key}"><td><span class="lg" title="${escapeHtml(p.title)}"><i style="background:${p.colour}"></i>${p.label}</span></td><td class="n">${pvNs(p.v)}</td><td class="n">${pvPct(p.v / (t.span_ns || 1))}</td></tr>`).join("")}` +
    `<tr><td class="muted">Span</td><td class="n">${pvNs(t.span_ns)}</td><td class="n muted">first ${escapeHtml(dev)} event to last</td></tr></tbody></table></div>`;
}

// Idle time by cause, a bar per stream on a common scale.
// dev: what one device is called ("GPU", "NPU": perf.accelerator.device).
export function gtIdle(g, dev = "GPU") {
  const rows = (g && g.idle_by_stream) || [];
  if (!rows.length) return "";
  const tot = (r) => GT_IDLE.reduce((a, p) => a + Math.max(0, r[p.key] || 0), 0);
  const max = Math.max(1, ...rows.map(tot));
  return `<div class="gt-idle"><div class="muted gt-cap">${escapeHtml(dev)} idle by cause, per stream (kernel wait: gaps under ${pvNs(g.kernel_wait_ns || 30000)}) · ${gtLegend(GT_IDLE)}</div>` +
    rows.map((r) => `<div class="gt-row" data-stream="${r.stream}"><span class="gt-lab">stream ${escapeHtml(String(r.stream))}</span>` +
      `<div class="gt-track"><div style="width:${(100 * tot(r) / max).toFixed(2)}%">${gtStackBar(GT_IDLE.map((p) => ({ ...p, v: Math.max(0, r[p.key] || 0) })))}</div></div>` +
      `<span class="gt-num">${pvNs(tot(r))}</span></div>`).join("") + "</div>";
}

// Kernel types with their overlaps, longest first.
export function gtKernelTypes(g) {
  const rows = (g && g.kernel_types) || [];
  if (!rows.length) return "";
  const all = rows.reduce((a, r) => a + r.ns, 0) || 1;
  const colour = (type) => {
    const parts = type.split(" overlapping ");
    return parts.length === 1 ? GT_TYPE_COLOURS[type] || "#999999"
      : `repeating-linear-gradient(135deg, ${parts.map((p, i) => `${GT_TYPE_COLOURS[p] || "#999"} ${i * 6}px ${(i + 1) * 6}px`).join(", ")})`;
  };
  return `<table class="gt-types"><tbody>${rows.map((r) => `<tr data-type="${escapeHtml(r.type)}"><td class="gt-tname"><span class="lg"><i style="background:${colour(r.type)}"></i>${escapeHtml(r.type)}</span></td>` +
    `<td class="n">${pvNs(r.ns)}</td><td class="n">${pvPct(r.ns / all)}</td><td class="gt-tbar"><span class="pv-share"><i style="width:${(100 * r.ns / all).toFixed(2)}%;background:${colour(r.type)}"></i></span></td></tr>`).join("")}</tbody></table>` +
    (g.comm_comp_overlap != null ? `<p class="gt-overlap">Communication under computation: <b>${pvPct(g.comm_comp_overlap, 2)}</b> of ${pvNs(g.comm_ns)} of communication.</p>` : "");
}

// The launch statistics: totals, the delay histogram, the outlier lists (links to the Trace view).
// dev: what one device is called (perf.accelerator.device): an NPU's launches are its CANN calls.
export function gtLaunches(g, dev) {
  const l = g && g.launches;
  if (!l && dev === "NPU") return '<p class="muted">No kernel launches to pair (no CANN call linked to a task by its connection id).</p>';
  if (!l) return '<p class="muted">No kernel launches to pair (no cudaLaunchKernel, cudaMemcpyAsync, cudaMemsetAsync or hip* call with a kernel of the same correlation id).</p>';
  let h = `<dl class="gt-dl"><dt>Launches</dt><dd>${groupDigits(l.count)}</dd><dt>Launching calls</dt><dd>${pvNs(l.cpu_ns)}</dd>` +
    `<dt>Kernels</dt><dd>${pvNs(l.gpu_ns)}</dd><dt>Launch delay</dt><dd>${pvNs(l.delay_ns)} in all, ${pvNs(l.delay_ns / l.count)} per launch, ${pvNs(l.delay_max_ns)} at most</dd></dl>`;
  h += `<h3>Launch delay <span class="lg"><i style="background:var(--accent)"></i>launches</span></h3>` +
    pvHistogram(l.delay_hist, { axis: "kernel start − end of its launching call (log scale)", mean: l.delay_ns / l.count }) +
    '<div class="pv-hist-cap muted">&nbsp;</div>';
  for (const o of GT_OUTLIERS) {
    const x = (l.outliers || {})[o.key];
    if (!x) continue;
    h += `<div class="gt-out" data-key="${o.key}"><h3>${o.label} <span class="muted">${plural(x.count, "launch", "launches")}: ${escapeHtml(o.what(x.cutoff_ns))}</span></h3>`;
    if (x.top.length) {
      h += '<table class="gt-outt"><thead><tr><th>kernel</th><th class="n">call</th><th class="n">kernel</th><th class="n">delay</th></tr></thead><tbody>' +
        x.top.map((k) => `<tr><td class="mono"><a class="gt-call" href="#" data-ts="${k.start_ns}" data-dur="${k.dur_ns}" data-name="${escapeHtml(k.name)}" title="open the Trace view on this kernel (launched by ${escapeHtml(k.launcher)})">${escapeHtml(k.name)}</a></td>` +
          `<td class="n">${pvNs(k.cpu_ns)}</td><td class="n">${pvNs(k.gpu_ns)}</td><td class="n">${pvNs(k.delay_ns)}</td></tr>`).join("") +
        `</tbody></table>${x.count > x.top.length ? `<div class="muted gt-more">the ${x.top.length} worst of ${groupDigits(x.count)}</div>` : ""}`;
    }
    h += "</div>";
  }
  return h;
}

// The launch queue per stream and the memory bandwidth per kind of copy.
export function gtQueues(g) {
  const q = (g && g.queues) || [], b = (g && g.membw) || [];
  let h = "";
  if (q.length) h += '<table class="gt-queues"><thead><tr><th class="n">stream</th><th class="n" title="launched, not started">max queue</th><th class="n">mean</th><th class="n" title="time with 1024 or more launched, not started (CUDA blocks the next launch)">at 1024+</th></tr></thead><tbody>' +
    q.map((r) => `<tr data-stream="${r.stream}"><td class="n">${escapeHtml(String(r.stream))}</td><td class="n">${groupDigits(r.max)}</td><td class="n">${(+r.mean).toFixed(2)}</td><td class="n">${pvNs(r.blocked_ns)}</td></tr>`).join("") + "</tbody></table>";
  if (b.length) h += '<table class="gt-bw"><thead><tr><th>copies</th><th class="n">highest bandwidth</th></tr></thead><tbody>' +
    b.map((r) => `<tr data-kind="${escapeHtml(r.kind)}"><td>${escapeHtml(r.kind)}</td><td class="n">${(+r.max_gbps).toFixed(2)} GB/s</td></tr>`).join("") + "</tbody></table>";
  return h ? h + '<p class="muted">Both are counter tracks in the Trace view.</p>' : "";
}

// Links a.gt-call (and the histogram's caption) inside el.
export function gtBind(el, app, rank) {
  el.querySelectorAll("a.gt-call").forEach((a) => a.addEventListener("click", (e) => {
    e.preventDefault();
    pvOpenCall(app, rank, a.dataset.name, +a.dataset.ts, +a.dataset.dur);
  }));
  const cap = el.querySelector(".pv-hist-cap");
  el.querySelectorAll(".pv-hbar").forEach((b) => {
    b.addEventListener("mouseenter", () => { if (cap) cap.textContent = b.dataset.tip; });
    b.addEventListener("mouseleave", () => { if (cap) cap.innerHTML = "&nbsp;"; });
  });
}

// The counter tracks of the Trace view: [{label, sub, unit, curve}] with each
// curve {t (ns on the trace's clock: begin + start), v, n, fan, mn, mx} for m4.js.
export function gtCounterTracks(g, begin) {
  if (!g) return [];
  const series = (s) => {
    const n = s.v.length, t = new Float64Array(n), v = new Float64Array(n);
    let at = begin + s.t0_ns;
    for (let i = 0; i < n; i++) { at += s.dt_us[i] * 1000; t[i] = at; v[i] = s.v[i]; }
    return { t, v, n, ...m4Build(v) };
  };
  const out = [];
  for (const q of (g.queues || []).slice(0, 8))
    out.push({ label: `queue length, stream ${q.stream}`, sub: `launched, not started · max ${groupDigits(q.max)}${q.summarised ? " · summarised" : ""}`, unit: "", curve: series(q) });
  for (const b of (g.membw || []).slice(0, 4))
    out.push({ label: `bandwidth, ${b.kind}`, sub: `GB/s · max ${(+b.max_gbps).toFixed(1)}${b.summarised ? " · summarised" : ""}`, unit: "GB/s", curve: series(b) });
  return out;
}
