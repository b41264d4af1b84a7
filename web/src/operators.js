// operators.js — the Operators view: every operator of perf.operators
// (web/DATA.md), grouped by name or by name + input shape, with calls,
// host/device self and total time, the share of the device time, and the
// Tensor Core columns; the detail panel shows the time per call (histogram of
// the calls' host times, the slowest calls linked to the Trace view), the
// kernels the operator launched (links to the Kernels view) and the call stack.

import { escapeHtml, groupDigits, shortOpName, plural } from "./format.js";
import { PerfTableView, pvNs, pvPct, pvInt, pvPerCall } from "./perfview.js";

// The device-time share of a row: its device self time over all operators'.
function opShareOf(perf) {
  if (!perf._opDevTotal) {
    let s = 0;
    for (const r of perf.operators.by_name) s += r.device_self_ns || 0;
    perf._opDevTotal = s || 1;
  }
  return perf._opDevTotal;
}

export function operatorColumns(group, perf) {
  const tot = opShareOf(perf);
  const cols = [{ key: "name", label: "Name", minWidth: 300, cls: "name" }];
  const acc = perf.accelerator || {}, dev = acc.device || "GPU"; // Ascend: NPU words, no Tensor Cores
  if (group === "shape") cols.push({ key: "input_shape", label: "Input shape", width: 200, cls: "name", fmt: (v) => v == null ? "–" : v });
  cols.push(
    { key: "calls", label: "Calls", num: true, width: 80, fmt: pvInt },
    { key: "host_self_ns", label: "Host self", title: "host time in the operator itself", num: true, width: 104, fmt: pvNs },
    { key: "host_total_ns", label: "Host total", title: "host time including the operators it called", num: true, width: 104, fmt: pvNs },
    { key: "device_self_ns", label: "Device self", title: `${dev} time of the kernels the operator itself launched`, num: true, width: 108, fmt: pvNs },
    { key: "device_total_ns", label: "Device total", title: `${dev} time including that of the operators it called`, num: true, width: 112, fmt: pvNs },
    { key: "device_share", label: `${dev === "GPU" ? "CUDA" : dev} time share`, title: "device self time over all operators' device self time", num: true, width: 150,
      get: (r) => (r.device_self_ns || 0) / tot, fmt: (v) => pvPct(v), csv: (r) => ((r.device_self_ns || 0) / tot).toFixed(6) },
  );
  if (acc.tensor_cores !== false) cols.push(
    { key: "tc_eligible", label: "TC eligible", title: "whether the operator can run on Tensor Cores", num: true, width: 100, chart: false,
      get: (r) => (r.tc_eligible ? 1 : 0), fmt: (v) => (v ? "yes" : "no"), csv: (r) => (r.tc_eligible ? "yes" : "no") },
    { key: "tc_self_ratio", label: "TC self", title: "share of the device self time on Tensor Cores", num: true, width: 80, fmt: (v) => pvPct(v, 0) },
    { key: "tc_total_ratio", label: "TC total", title: "share of the device total time on Tensor Cores", num: true, width: 84, fmt: (v) => pvPct(v, 0) },
    { key: "mean_ns", label: "Host mean", title: "host total time per call", num: true, width: 100,
      get: (r) => (r.calls ? r.host_total_ns / r.calls : null), fmt: pvNs, csv: (r) => (r.calls ? Math.round(r.host_total_ns / r.calls) : "") },
  );
  return cols;
}

function opRowKey(r, group) { return group === "shape" ? r.name + " " + (r.input_shape || "") : r.name; }

export function operatorDetail(r, perf, group) {
  const per = (v) => (r.calls && v != null ? pvNs(v / r.calls) : "–");
  let h = `<dl><dt>Name</dt><dd>${escapeHtml(r.name)}</dd>`;
  if (r.input_shape != null) h += `<dt>Input shape</dt><dd>${escapeHtml(r.input_shape)}</dd>`;
  h += `<dt>Calls</dt><dd>${groupDigits(r.calls)}</dd>` +
    `<dt>Host self</dt><dd>${pvNs(r.host_self_ns)} <span class="muted">(${per(r.host_self_ns)} per call)</span></dd>` +
    `<dt>Host total</dt><dd>${pvNs(r.host_total_ns)} <span class="muted">(${per(r.host_total_ns)} per call)</span></dd>` +
    `<dt>Device self</dt><dd>${pvNs(r.device_self_ns)} <span class="muted">(${per(r.device_self_ns)} per call)</span></dd>` +
    `<dt>Device total</dt><dd>${pvNs(r.device_total_ns)} <span class="muted">(${per(r.device_total_ns)} per call)</span></dd>` +
    `<dt>Tensor Cores</dt><dd>${r.tc_eligible ? `eligible; ${pvPct(r.tc_self_ratio, 0)} of self, ${pvPct(r.tc_total_ratio, 0)} of total time on them` : "not eligible"}</dd></dl>`;
  // the histogram of its calls' host durations and the slowest calls (links to the Trace view)
  h += pvPerCall(r, { mean: r.calls ? r.host_total_ns / r.calls : 0, title: "Host time per call", axis: "host time per call (log scale)" });
  // the other shapes of this operator (grouped by name: how its calls split)
  if (group !== "shape") {
    const shapes = perf.operators.by_shape.filter((x) => x.name === r.name && x.input_shape != null);
    if (shapes.length > 1) {
      h += `<h3>By input shape (${shapes.length})</h3><div class="ov">` + shapes.slice().sort((a, b) => b.calls - a.calls).slice(0, 30)
        .map((x) => `<a data-go="operators" data-sel="${escapeHtml(opRowKey(x, "shape"))}" title="open grouped by shape">${escapeHtml(x.input_shape)} · ${plural(x.calls, "call")} · ${pvNs(x.host_total_ns)}</a>`).join("") + "</div>";
    }
  }
  const ks = (r.kernels || []).map((k) => perf.kernels.by_name[k]).filter(Boolean);
  h += `<h3>Kernels launched (${ks.length})</h3>`;
  h += ks.length ? '<div class="ov">' + ks.sort((a, b) => b.total_ns - a.total_ns).map((k) =>
    `<a data-go="kernels" data-sel="${escapeHtml(k.name)}" title="${escapeHtml(k.name)}">${escapeHtml(shortKernel(k.name))} · ${groupDigits(k.calls)}× · ${pvNs(k.total_ns)}</a>`).join("") + "</div>"
    : '<p class="muted">None: the operator ran on the host only (or its kernels were launched by the operators it called).</p>';
  // one call's: the first call's stack the trace records for this row (its other calls may come from elsewhere)
  h += r.stack && r.stack.length ? `<h3>Call stack <span class="muted">of one call (the first recorded${r.calls > 1 ? `; the other ${groupDigits(r.calls - 1)} may differ` : ""})</span></h3>` : "<h3>Call stack</h3>";
  h += r.stack && r.stack.length ? '<div class="stack">' + r.stack.map((f) => `<div title="${escapeHtml(f)}">${escapeHtml(opFrameText(f))}</div>`).join("") + "</div>"
    : '<p class="muted">No call stack: record with <code>torch.profiler.profile(with_stack=True)</code>.</p>';
  return h;
}

// A call-stack frame ("/long/path/site-packages/torch/nn/modules/module.py(1102): _call_impl")
// as people read it: the path from the package on, or the last two parts of it.
export function opFrameText(f) {
  const s = String(f);
  const m = /^(.*?)(\(\d+\):.*)$/.exec(s);
  if (!m) return s;
  let file = m[1];
  const pk = /(?:site|dist)-packages\/(.+)$/.exec(file);
  if (pk) file = pk[1];
  else if (file.startsWith("/")) file = file.split("/").slice(-2).join("/");
  return file + m[2];
}

// A kernel's name cut to its function (templates and arguments left out) for narrow places.
export function shortKernel(name) {
  let s = String(name || "");
  s = s.replace(/^void /, "").replace(/\(anonymous namespace\)::/g, "");
  let depth = 0, out = "";
  for (const c of s) {
    if (c === "<" || c === "(") depth++;
    if (!depth) out += c;
    if ((c === ">" || c === ")") && depth) depth--;
  }
  out = out.trim();
  return out && out.length < s.length ? out + (s.includes("<") ? "<…>" : "") : s;
}

export class OperatorsView extends PerfTableView {
  constructor(el, app) {
    super(el, app, {
      title: "Operators", file: "operators",
      groups: [{ id: "name", label: "name" }, { id: "shape", label: "name + input shape" }],
      placeholder: "search operators (e.g. aten::mm)",
      metric: { key: "device_self_ns", label: "Device self" },
      columns: operatorColumns,
      rows: (perf, g) => (g === "shape" ? perf.operators.by_shape : perf.operators.by_name),
      rowKey: opRowKey,
      label: (r, g) => shortOpName(r.name) + (g === "shape" && r.input_shape ? " " + r.input_shape : ""),
      detail: operatorDetail,
      others: (perf, g) => (perf.operators.others || {})[g === "shape" ? "by_shape" : "by_name"] || null,
      empty: "This trace has no operators (no cpu_op events).",
    });
  }
}
