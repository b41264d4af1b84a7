// unmatched.js — what the page shows for a trace whose memory events carry
// no addresses (Kineto before PyTorch 1.10): frees cannot be paired with
// allocations, so there are no lifetimes, no live set and no allocation
// table — but never a false "0 allocations": the page says why, and shows
// what is known: the memory events by top-level operator and each one's
// contribution to the curve (net bytes allocated − freed under it), which add
// up to the curve's value at the peak.  Data: device.unmatched (web/DATA.md).

import { fmtBytes, fmtBytesExact, groupDigits, escapeHtml, plural, shortOpName } from "./format.js";

export const UNMATCHED_COLUMNS = ["operator", "alloc events", "bytes allocated", "free events", "bytes freed", "net at the peak"];

// The header's count: events, not allocations.
export function unmatchedCount(u) {
  return `${plural(u.allocs, "memory allocation event")} and ${plural(u.frees, "free event")}, not paired into allocations`;
}

// The peak panel: the curve's contributions by operator at the peak.
export function unmatchedPeakHtml(u) {
  return `<div class="muted" id="unmatched-why">Frees cannot be matched to allocations: ${escapeHtml(u.why)}. ` +
    "Below, the curve's value at the peak by top-level operator: bytes allocated minus bytes freed under it until then " +
    "(memory one operator allocates and another frees counts for the first as + and the second as −).</div>";
}

// Rows [label, bytes, count] for the bar list: positive contributions, largest first.
export function unmatchedBars(u) {
  return u.by_op.filter((r) => r[5] > 0).map((r) => [r[0], r[5], r[1]]);
}

// The table of memory events by operator, sorted by column k (dir 1 / -1).
export function unmatchedRows(u, text, k, dir) {
  const t = (text || "").toLowerCase();
  return u.by_op.filter((r) => !t || r[0].toLowerCase().includes(t))
    .slice().sort((a, b) => (k === 0 ? a[0].localeCompare(b[0]) : a[k] - b[k]) * dir || a[0].localeCompare(b[0]));
}

export function unmatchedTable(tv, u) {
  const q = tv.unm || (tv.unm = { sort: 5, dir: -1 });
  const rows = unmatchedRows(u, document.getElementById("f-text").value, q.sort, q.dir);
  tv.table.tHead.innerHTML = "<tr>" + UNMATCHED_COLUMNS.map((c, k) => `<th data-k="${k}" data-unm="1" class="${k ? "n" : ""} ${q.sort === k ? "sorted" + (q.dir > 0 ? " asc" : "") : ""}">${c}</th>`).join("") + "</tr>";
  tv.table.tBodies[0].innerHTML = rows.map((r) => "<tr>" + r.map((v, k) => k === 0
    ? `<td class="name" title="${escapeHtml(v)}">${escapeHtml(shortOpName(v))}</td>`
    : `<td class="n" ${k % 2 === 0 ? `title="${fmtBytesExact(v)}"` : ""}>${k % 2 === 0 || k === 5 ? (v < 0 ? "−" + fmtBytes(-v) : fmtBytes(v)) : groupDigits(v)}</td>`).join("") + "</tr>").join("");
  document.getElementById("t-count").innerHTML = `Memory events by top-level operator (${plural(rows.length, "operator")}): ` +
    `frees cannot be matched to allocations (${escapeHtml(u.why)}), so there is no table of allocations.`;
  document.getElementById("pg-label").textContent = "page 1 of 1";
  tv.pages = 1;
}

// A click on the table head: sorts the events table.  Returns whether it did.
export function unmatchedSort(tv, k) {
  const q = tv.unm || (tv.unm = { sort: 5, dir: -1 });
  q.dir = q.sort === k ? -q.dir : k === 0 ? 1 : -1;
  q.sort = k;
  return true;
}
