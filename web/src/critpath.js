// critpath.js — the critical path over the Trace view (perf.critical_path,
// web/DATA.md; src/analysis/critpath.h): each step's path as legs, a leg on
// one track drawn as a thick bar over the track's top edge (coloured by
// what its time is: CPU, GPU (NPU ...) compute, communication, launch delay, gaps
// between kernels), a leg between tracks (a launch, a sync, a wait) as an
// arrow.  The Trace view's "Critical path" button turns it on and off.
//
//   cpOverlay(perf, begin) -> null | {n, ft, fd, fx, tt, td, tx, kind, w, steps, kinds}
//       flat arrays of the legs, times on the Trace view's clock (begin is
//       the trace's begin, span.begin_ns's place on it)
//   cpDraw(ctx, ov, X, yOf, row, w, h)   draws the legs in the window
//   cpSummary(ov, t) -> text                   the step at time t: its path and parts

import { fmtDur } from "./format.js";
import { arrowhead } from "./arrow.js";

// Colour-blind safe (Okabe–Ito), by kind: cpu, gpu_compute, gpu_communication, launch, kernel_kernel, none.
export const CP_COLOURS = ["#0072B2", "#009E73", "#CC79A7", "#E69F00", "#D55E00", "#999999"];
export const CP_LABELS = ["CPU", "GPU compute", "GPU communication", "launch delay", "kernel gaps", "wait"];
// The labels in the words of the rank's accelerator (perf.accelerator.device: "GPU", "NPU" ...); the
// kinds' keys (gpu_compute ...) stay as they are.
export function cpLabels(dev) {
  const d = dev || "GPU";
  return ["CPU", `${d} compute`, `${d} communication`, "launch delay", "kernel gaps", "wait"];
}
// The Trace view's search highlight, by theme: the page's foreground contrast
// (black on light, white on dark), none of the critical path's colours (the
// vermillion it used was the kernel gaps' one).
export const SEARCH_COLOUR = { light: "#000000", dark: "#FFFFFF" };

export function cpOverlay(perf, begin) {
  const cp = perf && perf.critical_path;
  if (!cp || !cp.steps || !cp.steps.length) return null;
  let n = 0;
  for (const s of cp.steps) n += s.legs ? s.legs.kind.length : 0;
  const ov = {
    n, ft: new Int32Array(n), fd: new Int32Array(n), fx: new Float64Array(n), tt: new Int32Array(n), td: new Int32Array(n),
    tx: new Float64Array(n), kind: new Uint8Array(n), w: new Float64Array(n), kinds: cp.kinds || [], has_sync: cp.has_sync,
    dev: (perf.accelerator || {}).device || "GPU", labels: cpLabels((perf.accelerator || {}).device),
    steps: cp.steps.map((s) => ({ name: s.name, t0: begin + s.begin, t1: begin + s.end, ok: s.ok, path_ns: s.path_ns, by_kind: s.by_kind })),
  };
  let k = 0;
  for (const s of cp.steps) {
    const L = s.legs;
    if (!L) continue;
    for (let i = 0; i < L.kind.length; i++, k++) {
      ov.ft[k] = L.from_track[i]; ov.fd[k] = L.from_depth[i]; ov.fx[k] = begin + L.from_t[i];
      ov.tt[k] = L.to_track[i]; ov.td[k] = L.to_depth[i]; ov.tx[k] = begin + L.to_t[i];
      ov.kind[k] = L.kind[i]; ov.w[k] = L.w[i];
    }
  }
  return ov;
}

// yOf(track, depth): the row's top in canvas pixels, or null when the track is not laid out.
export function cpDraw(ctx, ov, X, yOf, row, w, h) {
  if (!ov) return;
  ctx.save();
  ctx.lineCap = "round";
  for (let i = 0; i < ov.n; i++) {
    const x0 = X(ov.fx[i]), x1 = X(ov.tx[i]);
    if (Math.max(x0, x1) < -20 || Math.min(x0, x1) > w + 20) continue;
    const col = CP_COLOURS[ov.kind[i]] || CP_COLOURS[5];
    const ya = yOf(ov.ft[i], ov.fd[i]), yb = yOf(ov.tt[i], ov.td[i]);
    if (ya == null || yb == null) continue;
    if (ov.ft[i] === ov.tt[i]) {
      // along the track: a bar over the top edge of its first row
      const top = yOf(ov.ft[i], 0);
      const y = (top == null ? Math.min(ya, yb) : top) - 1;
      if (y < -4 || y > h + 4) continue;
      ctx.fillStyle = col;
      ctx.fillRect(Math.min(x0, x1), y, Math.max(2, Math.abs(x1 - x0)), 5);
    } else {
      // between tracks: an arrow from the first node to the last
      const ay = ya + row / 2, by = yb + row / 2;
      if (Math.max(ay, by) < 0 || Math.min(ay, by) > h) continue;
      ctx.strokeStyle = col;
      ctx.fillStyle = col;
      ctx.lineWidth = 2.5;
      ctx.setLineDash(ov.w[i] > 0 ? [] : [5, 4]);
      ctx.beginPath();
      ctx.moveTo(x0, ay);
      ctx.lineTo(x1, by);
      ctx.stroke();
      ctx.setLineDash([]);
      arrowhead(ctx, x1, by, Math.atan2(by - ay, x1 - x0 || 0.001), 9, 0.45);
    }
  }
  ctx.restore();
}

// The step whose window holds t (else the first), in words: "ProfilerStep#5: path 12.3 ms — CPU 40% · …".
export function cpSummary(ov, t) {
  if (!ov || !ov.steps.length) return "";
  const s = ov.steps.find((x) => t >= x.t0 && t <= x.t1) || ov.steps[0];
  if (!s.ok) return `${s.name}: no critical path (the dependency graph has a cycle, or the step has no host calls)`;
  const parts = [];
  for (let k = 0; k < 5; k++) {
    const v = s.by_kind[k] || 0;
    if (v > 0) parts.push(`${(ov.labels || CP_LABELS)[k]} ${fmtDur(v)} (${(100 * v / (s.path_ns || 1)).toFixed(1)} %)`);
  }
  const dev = ov.dev || "GPU";
  return `${s.name}: critical path ${fmtDur(s.path_ns)} — ${parts.join(" · ")}` +
    (ov.has_sync ? "" : dev === "NPU" ? " · the export has no synchronisation events, so host waits for the NPU are not on it"
      : ` · the trace has no cuda_sync events, so host waits for the ${dev} are not on it`);
}
