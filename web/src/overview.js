// overview.js — the Overview view: summary cards (duration, steps, events,
// unique operators, GPU kernels, peak memory), a card per GPU (name, memory,
// compute capability, a utilization gauge, SM efficiency, occupancy), the
// step-time breakdown as a stacked bar per step with the average as a donut,
// HTA's GPU time (temporal breakdown, idle time by cause per stream:
// gputime.js), the recommendations with the numbers behind them, and the
// notes on what the analyses had to adjust in the input (perf object,
// web/DATA.md).

import { defaultDevice } from "./devorder.js";
import { escapeHtml, fmtBytes, groupDigits } from "./format.js";
import { pvNs, pvPct, pvWhy, pvNoPerf } from "./perfview.js";
import { notesHtml } from "./present.js";
import { gtTemporal, gtIdle, GT_TEMPORAL } from "./gputime.js";

// The parts of a step, bottom first, each a colour-blind-safe hue (Okabe & Ito, Tol).
export const STEP_PARTS = [
  { key: "kernel_ns", label: "Kernel", colour: "#0072B2" },
  { key: "memcpy_ns", label: "Memcpy", colour: "#E69F00" },
  { key: "memset_ns", label: "Memset", colour: "#DDCC77" },
  { key: "communication_ns", label: "Communication", colour: "#CC79A7" },
  { key: "runtime_ns", label: "Runtime", colour: "#D55E00" },
  { key: "dataloader_ns", label: "DataLoader", colour: "#009E73" },
  { key: "cpu_exec_ns", label: "CPU exec", colour: "#56B4E9" },
  { key: "other_ns", label: "Other", colour: "#999999" },
];

function ovCard(label, value, sub, id) {
  return `<div class="pv-card"${id ? ` id="${id}"` : ""}><div class="l">${escapeHtml(label)}</div><div class="v">${value}</div>${sub ? `<div class="s muted">${sub}</div>` : ""}</div>`;
}

// A half-circle gauge for a ratio 0-1 (null: unknown), its <title> the
// value and what it means (the tooltip).
export function ovGauge(ratio, label, dev = "GPU") {
  const R = 52, cx = 64, cy = 62, a = Math.PI * (1 - Math.max(0, Math.min(1, ratio || 0)));
  const x = cx + R * Math.cos(a), y = cy - R * Math.sin(a);
  const arc = `M ${cx - R} ${cy} A ${R} ${R} 0 0 1 ${x.toFixed(2)} ${y.toFixed(2)}`;
  return `<svg class="pv-gauge" viewBox="0 0 128 76" width="150" height="89" role="img" aria-label="${escapeHtml(label)} ${pvPct(ratio)}">` +
    `<title>${escapeHtml(label)}: ${ratio == null ? "unknown (no kernel activity recorded)" : pvPct(ratio) + ` of the profiled time had at least one kernel running on the ${escapeHtml(dev)} (busy time / span${dev === "GPU" ? "; not how full the SMs were" : ""})`}</title>` +
    `<path d="M ${cx - R} ${cy} A ${R} ${R} 0 0 1 ${cx + R} ${cy}" class="track"/>` +
    (ratio != null ? `<path d="${arc}" class="fill" style="stroke:${ratio < 0.5 ? "#D55E00" : ratio < 0.8 ? "#E69F00" : "#009E73"}"/>` : "") +
    `<text x="${cx}" y="${cy - 6}" text-anchor="middle" class="big">${ratio == null ? "–" : Math.round(ratio * 100) + "%"}</text>` +
    `<text x="${cx}" y="${cy + 12}" text-anchor="middle" class="lab">${escapeHtml(label)}</text></svg>`;
}

function ovMeter(label, ratio, title) {
  return `<div class="pv-meter" title="${escapeHtml(title || "")}"><span class="l">${escapeHtml(label)}</span><span class="b"><i style="width:${ratio == null ? 0 : Math.min(100, ratio * 100).toFixed(1)}%"></i></span><span class="v">${pvPct(ratio)}</span></div>`;
}

// Stacked bars, one per step (SVG; a <title> per segment for the numbers).
// W: the width it is shown at (px): drawn at its size, not scaled, its labels
// stay the page's size (a 900-wide drawing in 300 px wrote them 5 px tall).
export function ovStepBars(steps, W = 900) {
  W = Math.max(240, Math.round(W));
  const H = 250, L = 64, B = 40, T = 10, n = steps.length;
  const max = Math.max(1, ...steps.map((s) => s.total_ns || STEP_PARTS.reduce((a, p) => a + (s[p.key] || 0), 0)));
  const gap = n > 40 ? 1 : 6, bw = Math.max(2, (W - L - 8) / n - gap);
  const y = (v) => T + (H - T - B) * (1 - v / max);
  let g = "";
  for (let k = 0; k <= 4; k++) {
    const v = (max * k) / 4;
    g += `<line x1="${L}" x2="${W - 4}" y1="${y(v)}" y2="${y(v)}" class="grid"/><text x="${L - 6}" y="${y(v) + 4}" text-anchor="end" class="lab">${pvNs(v)}</text>`;
  }
  steps.forEach((s, i) => {
    const x = L + 4 + i * (bw + gap);
    let acc = 0;
    for (const p of STEP_PARTS) {
      const v = s[p.key] || 0;
      if (v <= 0) continue;
      const y1 = y(acc + v), y0 = y(acc);
      g += `<rect x="${x.toFixed(1)}" y="${y1.toFixed(1)}" width="${bw.toFixed(1)}" height="${Math.max(0.5, y0 - y1).toFixed(1)}" fill="${p.colour}"><title>${escapeHtml(s.name)} · ${p.label}: ${pvNs(v)} (${pvPct(v / (s.total_ns || 1))})</title></rect>`;
      acc += v;
    }
    const most = Math.max(2, Math.floor((W - L) / 44)); // labels 44 px apart at least
    if (n <= most || i % Math.ceil(n / most) === 0) {
      const lab = String(s.name).replace(/^ProfilerStep/, "");
      g += `<text x="${(x + bw / 2).toFixed(1)}" y="${H - B + 16}" text-anchor="middle" class="lab">${escapeHtml(lab)}</text>`;
    }
  });
  g += `<text x="${L + 4}" y="${H - 6}" class="lab">step (total ${pvNs(max)} at most)</text>`;
  return `<svg class="pv-steps" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="time per step by kind">${g}</svg>`;
}

// The average step as a donut with its legend.
export function ovDonut(avg) {
  const parts = STEP_PARTS.map((p) => ({ p, v: avg[p.key] || 0 })).filter((x) => x.v > 0);
  const tot = parts.reduce((a, x) => a + x.v, 0) || 1;
  const R = 70, r = 42, cx = 80, cy = 80;
  let a0 = -Math.PI / 2, g = "";
  for (const { p, v } of parts) {
    const a1 = a0 + (2 * Math.PI * v) / tot, big = a1 - a0 > Math.PI ? 1 : 0;
    const pt = (rad, a) => `${(cx + rad * Math.cos(a)).toFixed(2)} ${(cy + rad * Math.sin(a)).toFixed(2)}`;
    const d = parts.length === 1
      ? `M ${cx - R} ${cy} A ${R} ${R} 0 1 1 ${cx + R} ${cy} A ${R} ${R} 0 1 1 ${cx - R} ${cy} M ${cx - r} ${cy} A ${r} ${r} 0 1 0 ${cx + r} ${cy} A ${r} ${r} 0 1 0 ${cx - r} ${cy} Z`
      : `M ${pt(R, a0)} A ${R} ${R} 0 ${big} 1 ${pt(R, a1)} L ${pt(r, a1)} A ${r} ${r} 0 ${big} 0 ${pt(r, a0)} Z`;
    g += `<path d="${d}" fill="${p.colour}" fill-rule="evenodd"><title>${p.label}: ${pvNs(v)} (${pvPct(v / tot)})</title></path>`;
    a0 = a1;
  }
  g += `<text x="${cx}" y="${cy - 2}" text-anchor="middle" class="big">${pvNs(avg.total_ns || tot)}</text><text x="${cx}" y="${cy + 15}" text-anchor="middle" class="lab">average step</text>`;
  const legend = STEP_PARTS.map((p) => {
    const v = avg[p.key] || 0;
    return `<tr${v ? "" : ' class="muted"'}><td><span class="lg"><i style="background:${p.colour}"></i>${p.label}</span></td><td class="n">${pvNs(v)}</td><td class="n">${pvPct(v / tot)}</td></tr>`;
  }).join("");
  return `<div class="pv-donut"><svg viewBox="0 0 160 160" width="170" height="170" role="img" aria-label="average step by kind">${g}</svg>` +
    `<table class="pv-legend"><tbody>${legend}</tbody></table></div>`;
}

const REC_UNITS = { dataloader: "ratio", gpu_utilization: "ratio", communication: "ratio", tensor_cores: "ratio", fragmentation: "ratio" };

export class OverviewView {
  constructor(el, app) {
    this.el = el;
    this.app = app;
    this.rank = -1;
  }

  async show(rank) {
    const perf = await this.app.perfOf(rank);
    if (rank === this.rank && perf === this.perf && this.el.childElementCount) { this.fitSteps(); return; } // resized while hidden
    this.rank = rank;
    this.perf = perf;
    const r = this.app.meta.ranks[rank] || {};
    if (!perf) {
      const mem = (r.devices || []).length > 0;
      pvWhy(this.el, "No time data in this input", pvNoPerf(r),
        mem ? 'Its memory is in the <a href="#view=memory&amp;rank=' + rank + '">Memory view</a> (key 5).' : "");
      return;
    }
    this.el.innerHTML = this.html(perf, r);
    this.fitSteps();
    if (!this.onResize && typeof window !== "undefined") {
      let t;
      this.onResize = () => { clearTimeout(t); t = setTimeout(() => { if (!this.el.hidden) this.fitSteps(); }, 100); };
      window.addEventListener("resize", this.onResize);
    }
  }

  // The step bars drawn again at the width their column has (the donut beside them).
  fitSteps() {
    const wrap = this.el.querySelector(".pv-stepwrap"), steps = (this.perf && this.perf.steps) || [];
    if (!wrap || !steps.length) return;
    const old = wrap.querySelector("svg.pv-steps"), donut = wrap.querySelector(".pv-donut");
    const w = wrap.clientWidth - (donut ? donut.getBoundingClientRect().width + 16 : 0);
    if (!(w > 0) || Math.abs(w - old.getAttribute("width")) < 2) return;
    old.outerHTML = ovStepBars(steps, w);
  }

  html(p, r) {
    const c = p.counts || {}, span = p.span || {};
    const acc = (p.devices || []).length && (p.devices || []).every((d) => /^npu/i.test(d.id)) ? "NPU" : "GPU";   // Ascend: NPUs
    const peaks = (r.devices || []).filter((d) => d.peak);
    // the accelerator with the highest peak (a cpu's larger host peak is not the one that runs out)
    const peak = peaks.length ? peaks[defaultDevice(peaks.map((d) => ({ id: d.id, peak: d.peak.v })))] : null;
    const memCard = peak
      ? ovCard("Peak memory", fmtBytes(peak.peak.v), `${escapeHtml(peak.id)} · <a href="#view=memory&amp;rank=${this.rank}">Memory view</a>`, "ov-peak")
      : ovCard("Peak memory", '<span class="unknown">not recorded</span>',
        (r.notes || []).some((n) => n.startsWith("memory profiling was on")) ? "memory profiling was on: nothing allocated" : "record with profile_memory=True", "ov-peak");
    let h = '<div class="pv-cards">' +
      ovCard("Duration", pvNs(span.end_ns - span.begin_ns), "", "ov-duration") +
      ovCard("Steps", c.steps ? groupDigits(c.steps) : "–", c.steps ? "" : "no ProfilerStep# marks: one step, the whole trace", "ov-steps") +
      ovCard("Events", groupDigits(c.events || 0), c.slices != null ? `${groupDigits(c.slices)} with a duration` : "", "ov-events") +
      ovCard("Unique operators", groupDigits(c.operators_unique || 0), "", "ov-ops") +
      ovCard(acc + " kernels", groupDigits(c.kernels || 0), c.kernel_names != null ? `${groupDigits(c.kernel_names)} distinct` : "", "ov-kernels") +
      memCard + "</div>";
    // what the analyses adjusted in this input (times cut, args dropped, steps dropped)
    if ((p.notes || []).length) h += `<div class="pv-notes" id="ov-notes">${notesHtml(p.notes)}</div>`;
    h += '<div class="pv-ovgrid">';
    // GPUs
    h += `<section class="panel pv-gpus"><div class="bar"><h2>${acc}</h2></div>`;
    const devs = p.devices || [];
    if (!devs.length) h += '<p class="muted">No GPU or NPU in this trace (a CPU-only profile).</p>';
    for (const d of devs) {
      h += `<div class="pv-gpu"><div class="pv-gpuinfo"><div class="name">${escapeHtml(d.id)} · ${d.name ? escapeHtml(d.name) : '<span class="unknown">name unknown</span>'}</div>` +
        `<dl><dt>Memory</dt><dd>${d.total_memory_bytes > 0 ? fmtBytes(d.total_memory_bytes) : '<span class="unknown">unknown</span>'}</dd>` +
        (acc === "NPU" ? "" // CUDA's compute capability, SMs and Tensor Cores: an NPU has AI Cores (Kernels view, by Accelerator Core)
          : `<dt>Compute capability</dt><dd>${d.compute_capability ? escapeHtml(d.compute_capability) : '<span class="unknown">unknown</span>'}</dd>` +
            `<dt>SMs</dt><dd>${d.sm_count ? groupDigits(d.sm_count) : '<span class="unknown">unknown</span>'}</dd>`) +
        `<dt>Kernel time</dt><dd>${pvNs(d.kernel_ns)}</dd></dl>` +
        (acc === "NPU" ? "" : ovMeter("SM efficiency", d.sm_efficiency, "share of the SMs busy while kernels ran (blocks per SM, capped at 1, time-weighted)") +
          ovMeter("Occupancy", d.occupancy == null ? null : d.occupancy / 100, "estimated achieved occupancy, time-weighted") +
          ovMeter("Tensor Cores", d.tensor_core_share, "share of the kernel time in kernels that use Tensor Cores")) +
        `</div>${ovGauge(d.utilization, acc + " utilization", acc)}</div>`;
    }
    h += "</section>";
    // Step time
    const steps = p.steps || [];
    h += '<section class="panel pv-stepsp"><div class="bar"><h2>Step time breakdown</h2><span class="spacer"></span>' +
      STEP_PARTS.map((x) => `<span class="lg"><i style="background:${x.colour}"></i>${x.label}</span>`).join(" ") + "</div>";
    h += steps.length ? `<div class="pv-stepwrap">${ovStepBars(steps)}${ovDonut(p.step_average || {})}</div>` : '<p class="muted">No steps.</p>';
    h += "</section>";
    // GPU time as HTA measures it
    const g = p.gputime;
    if (g) h += `<section class="panel pv-gputime" id="ov-gputime"><div class="bar"><h2>${acc} time</h2><span class="muted">HolisticTraceAnalysis's temporal breakdown${g.last_step_cut ? " · the last ProfilerStep# left out, as HTA does" : ""}</span><span class="spacer"></span>` +
      GT_TEMPORAL.map((x) => `<span class="lg"><i style="background:${x.colour}"></i>${x.label}</span>`).join(" ") + `</div><div class="gt-cols">${gtTemporal(g, acc)}${gtIdle(g, acc)}</div>` +
      `<p class="muted">Kernel types, launches, the launch queue and bandwidth: the <a href="#view=kernels&amp;rank=${this.rank}">Kernels view</a> (key 3).</p></section>`;
    // Recommendations
    const recs = p.recommendations || [];
    h += '<section class="panel pv-recs"><div class="bar"><h2>Recommendations</h2></div>';
    h += recs.length ? "<ul>" + recs.map((x) => {
      const ratio = REC_UNITS[x.id] === "ratio" && x.value != null && x.value <= 1;
      const num = x.value == null ? "" : ratio ? pvPct(x.value) : groupDigits(x.value);
      const thr = x.threshold == null ? "" : ratio ? pvPct(x.threshold, 0) : groupDigits(x.threshold);
      return `<li data-id="${escapeHtml(x.id)}"><div>${escapeHtml(x.text)}</div>${num ? `<div class="muted nums">measured <b>${num}</b>${thr ? ` · threshold ${thr}` : ""}</div>` : ""}</li>`;
    }).join("") + "</ul>" : '<p class="muted">Nothing stands out: no step part is above its threshold.</p>';
    h += "</section></div>";
    return h;
  }
}
