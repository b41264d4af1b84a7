// stragglers.js — the Distributed view's panel of potential stragglers
// (perf.distributed.stragglers, web/DATA.md; src/analysis/stragglers.h):
// the collective that tells them (the one whose duration varies most across
// ranks: each rank waits inside it for the last to arrive), how late each
// rank started it in each step (bars, the latest ranks of a step marked),
// and the ranks named: HTA's get_potential_stragglers.
//
//   sgPanel(d) -> html   (d: a perf object's distributed; "" when it has neither stragglers nor a reason)

import { escapeHtml, groupDigits } from "./format.js";
import { pvNs } from "./perfview.js";

function sgBars(s) {
  const steps = [...new Set(s.rows.map((r) => r.step))];
  const ranks = [...new Set(s.rows.map((r) => r.rank))].sort((a, b) => a - b);
  const max = Math.max(1, ...s.rows.map((r) => r.late_ns));
  const rowH = 20, L = 110, W = 900, R = 120, gap = 12;
  let y = 4, g = "";
  for (const st of steps) {
    g += `<text x="4" y="${y + 13}" class="lab">step ${escapeHtml(String(st))}</text>`;
    y += rowH;
    for (const rk of ranks) {
      const r = s.rows.find((x) => x.step === st && x.rank === rk);
      if (!r) continue;
      const bw = ((W - L - R) * r.late_ns) / max;
      g += `<text x="${L - 8}" y="${y + 13}" text-anchor="end" class="lab${r.straggler ? " warn" : ""}">rank ${rk}${r.straggler ? " ▲" : ""}</text>` +
        `<rect class="sg-bar${r.straggler ? " late" : ""}" x="${L}" y="${y + 2}" width="${Math.max(1, bw).toFixed(1)}" height="${rowH - 6}" fill="${r.straggler ? "#D55E00" : "#0072B2"}">` +
        `<title>rank ${rk}, step ${st}: started it ${escapeHtml(pvNs(r.late_ns))} after the earliest rank (normalized start ${r.normalized_start.toFixed(4)})${r.straggler ? ", among the latest" : ""}</title></rect>` +
        `<text x="${(L + Math.max(1, bw) + 6).toFixed(1)}" y="${y + 13}" class="lab">${escapeHtml(pvNs(r.late_ns))}</text>`;
      y += rowH;
    }
    y += gap;
  }
  return `<svg class="sg-chart" viewBox="0 0 ${W} ${y}" width="${W}" height="${y}" style="max-width:100%" role="img" aria-label="how late each rank started the collective">${g}</svg>`;
}

export function sgPanel(d) {
  if (!d) return "";
  const s = d.stragglers;
  if (!s) {
    return d.stragglers_why ? `<section class="panel sg-panel"><div class="bar"><h2>Stragglers</h2></div>` +
      `<p class="muted sg-why">No potential stragglers named: ${escapeHtml(d.stragglers_why)}.</p></section>` : "";
  }
  const counts = s.counts.map((c) => `rank ${c.rank}: ${groupDigits(c.count)}`).join(" · ");
  return `<section class="panel sg-panel"><div class="bar"><h2>Stragglers</h2>
      <span class="muted">ranks that start their collective late (HTA's get_potential_stragglers)</span></div>
    <p class="sg-named">Potential straggler${s.ranks.length === 1 ? "" : "s"}: <b>${s.ranks.map((r) => "rank " + r).join(", ")}</b>
      <span class="muted">— among the ${s.candidates} latest to start it in the most steps (${escapeHtml(counts)})</span></p>
    <p class="muted">The collective: <span class="mono" title="${escapeHtml(s.kernel)}">${escapeHtml(s.kernel.length > 90 ? s.kernel.slice(0, 89) + "…" : s.kernel)}</span>
      on stream ${escapeHtml(String(s.stream))}, the one whose duration varies most across ranks (the early ones wait in it for the last);
      kernels under ${escapeHtml(pvNs(s.min_kernel_ns))} (1% of the mean step, ${escapeHtml(pvNs(s.mean_step_ns))}) and each rank's last step are left out.</p>
    ${sgBars(s)}</section>`;
}
