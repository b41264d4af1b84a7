// zoom.js — the window of time the page shows, as a pure function: a
// request [a, b) is kept inside the data's range [lo, hi) by shifting it,
// not by cutting it, so that panning at an edge keeps the span (a request
// as wide as the range or wider shows the whole range).

export const MIN_SPAN_NS = 100;

export function clampWindow(a, b, lo, hi, minSpan = MIN_SPAN_NS) {
  if (!(hi > lo)) hi = lo + 1;
  if (!(b > a)) return null;
  if (b - a < minSpan) { const m = (a + b) / 2; a = m - minSpan / 2; b = m + minSpan / 2; }
  const span = b - a;
  if (span >= hi - lo) return [lo, hi];
  if (a < lo) return [lo, lo + span];
  if (b > hi) return [hi - span, hi];
  return [a, b];
}
