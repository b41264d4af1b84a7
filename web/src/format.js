// format.js — how memlens shows numbers: bytes in binary units (KiB, MiB,
// GiB), durations, and absolute wall-clock times (UTC) from exact ns.

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

// 6629508096 -> "6.17 GiB"; keeps three significant digits.  A value of
// 1000 or more of a unit moves to the next one (1000 MiB -> "0.98 GiB"), so
// that no figure has four digits before the point.
export function fmtBytes(b) {
  if (b == null || !isFinite(b)) return "–";
  const neg = b < 0;
  let x = Math.abs(b), u = 0;
  while (x >= 1000 && u < UNITS.length - 1) { x /= 1024; u++; }
  const s = u === 0 ? String(Math.round(x)) : x >= 99.95 ? x.toFixed(0) : x >= 9.995 ? x.toFixed(1) : x.toFixed(2);
  return (neg ? "−" : "") + s + " " + UNITS[u];
}

// Tick values for a byte axis from 0 to max, about `space` px apart on
// heightPx, all in one unit and at round steps of it (0, 256 MiB, 512 MiB,
// 768 MiB; or 0, 0.5 GiB, 1.0 GiB): {ticks, unit, label(v)}.
export function byteAxis(max, heightPx, space = 40) {
  const want = Math.max(2, heightPx / space);
  let u = 0;
  while (u < UNITS.length - 1 && max / 1024 ** u >= 1000) u++;
  const unit = 1024 ** u;
  const steps = [0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000];
  // whole bytes at every tick where a byte is still visible (B, KiB): no "2.5 B", no 102.4 B
  const unitSteps = u <= 1 ? steps.filter((s) => Number.isInteger(s * unit)) : steps;
  const step = (unitSteps.find((s) => max / (s * unit) <= want) || 1000) * unit;
  const ticks = [];
  for (let k = 0; k * step <= max && ticks.length < 200; k++) ticks.push(k * step);
  const dec = Math.max(0, ...unitSteps.filter((s) => s * unit === step).map((s) => (String(s).split(".")[1] || "").length));
  const label = (v) => (v === 0 ? "0" : (v / unit).toFixed(dec) + " " + UNITS[u]);
  return { ticks, unit: UNITS[u], label };
}

// 6629508096 -> "6,629,508,096 B"
export function fmtBytesExact(b) {
  return groupDigits(Math.round(b)) + " B";
}

export function groupDigits(n) {
  const s = String(Math.abs(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return (n < 0 ? "−" : "") + s;
}

// Parses "512", "1.5 MiB", "2GB" (decimal GB read as GiB: users mean it) -> bytes;
// null for an empty field, NaN for text that is not a size.
export function parseBytes(text) {
  if (!text || !text.trim()) return null;
  const m = /^\s*([0-9]*\.?[0-9]+)\s*([kmgtp]?)(i?b?)\s*$/i.exec(text);
  if (!m) return NaN;
  const pow = { "": 0, k: 1, m: 2, g: 3, t: 4, p: 5 }[m[2].toLowerCase()];
  return Math.round(parseFloat(m[1]) * Math.pow(1024, pow));
}

// Duration in ns -> "1.23 ms"
export function fmtDur(ns) {
  if (ns == null || !isFinite(ns)) return "–";
  const a = Math.abs(ns);
  // the unit by the rounded figure: 999.97 µs is "1.00 ms", not "1.00e+3 µs"
  if (Math.round(a) < 1e3) return ns.toFixed(0) + " ns";
  if (+(a / 1e3).toPrecision(3) < 1e3) return (ns / 1e3).toPrecision(3) + " µs";
  if (+(a / 1e6).toPrecision(3) < 1e3) return (ns / 1e6).toPrecision(3) + " ms";
  if (a < 600e9) return (ns / 1e9).toPrecision(3) + " s";
  return (ns / 60e9).toFixed(1) + " min";
}

// "1 band", "2 bands", "1,024 allocations".
export function plural(n, one, many = one + "s") { return groupDigits(n) + " " + (n === 1 ? one : many); }

// An operator or frame name for a narrow label: known prefixes shortened
// ("autograd::engine::evaluate_function: MmBackward0" -> "MmBackward0 (backward)").
export function shortOpName(s) {
  let m = /^autograd::engine::evaluate_function: (.+)$/.exec(s);
  if (m) return m[1] + " (backward)";
  m = /^Optimizer\.(?:step|zero_grad)#(\w+)\.(step|zero_grad)$/.exec(s);
  if (m) return m[1] + "." + m[2];
  m = /^(.+) \((\/.*\/)?([^/]+:\d+)\)$/.exec(s);     // "forward (/long/path/transformer.py:39)"
  if (m) return m[1] + " (" + m[3] + ")";
  return s;
}

// s cut in the middle to fit width (measure(text) -> width), keeping both ends.
export function middleEllipsis(s, width, measure) {
  if (measure(s) <= width) return s;
  let lo = 0, hi = s.length;
  const cut = (k) => s.slice(0, Math.ceil(k / 2)) + "…" + s.slice(s.length - Math.floor(k / 2));
  while (lo < hi) { const m = (lo + hi + 1) >> 1; if (measure(cut(m)) <= width) lo = m; else hi = m - 1; }
  return lo ? cut(lo) : "…";
}

// A lane label cut to width (measure(text) -> px) where people can still
// read it: the part that tells lanes apart is kept whole, the file:line of
// "forward (transformer.py:22)", the "(backward)" of a backward op, the op of
// "(no Python frame: BmmBackward0)", and the name before it is cut after a
// whole part of it ("scaled_dot…", "CompiledFunction…": at "_", "::", ".",
// " ", "/" or a lowercase-to-capital step), never mid-word; middleEllipsis
// when not even that fits.  The full name goes in the label's tooltip.
// Where each part of a name after the first starts: after "_", ".", "/",
// " ", ":" or "-", and at a lowercase-to-capital step ("Compiled|Function").
function partStarts(name) {
  const out = [];
  for (let k = 1; k < name.length; k++) {
    const a = name[k - 1], b = name[k];
    if ("_./ :-".includes(a) && !"_./ :-".includes(b)) out.push(k);
    else if (/[a-z0-9]/.test(a) && /[A-Z]/.test(b)) out.push(k);
  }
  return out;
}

export function laneLabel(s, width, measure) {
  if (measure(s) <= width) return s;
  let m = /^(.+?)( \([^()]*\))$/.exec(s), head, tail;
  if (m) { head = m[1]; tail = m[2]; }
  else if ((m = /^(\(.*?)(: [^:]+\))$/.exec(s))) { head = m[1]; tail = m[2]; }
  else { head = s; tail = ""; }
  const cuts = partStarts(head); // the places head may be cut: after each whole part of it
  for (let j = cuts.length - 1; j >= 0; j--) {
    const t = head.slice(0, cuts[j]).replace(/[_./ :-]+$/, "") + "…" + tail;
    if (measure(t) <= width) return t;
  }
  if (tail && measure("…" + tail.trimStart()) <= width) return "…" + tail.trimStart();
  // "(no Python frame: LinalgVectorNormBackward0)" narrower still: the op's last whole parts
  const op = /^: (.+)\)$/.exec(tail);
  if (op) for (const k of partStarts(op[1])) { const t = "(…" + op[1].slice(k) + ")"; if (measure(t) <= width) return t; }
  return middleEllipsis(s, width, measure);
}

function pad(n, w) { return String(n).padStart(w, "0"); }

// A clock for one report: origin is the exact absolute ns (BigInt) of
// relative time 0; mode "abs" shows UTC wall-clock, "rel" an offset from
// the start, "order" an event number.
export function makeClock(originNs, mode) {
  const origin = BigInt(originNs || 0);
  // digits: 0 = seconds, 3 = ms, 6 = µs, 9 = ns
  function fmt(rel, digits = 6, withDate = false) {
    if (rel == null || !isFinite(rel)) return "–";
    if (mode === "order") return "#" + groupDigits(Math.round(rel));
    if (mode !== "abs") return "+" + fmtDur(rel);
    const abs = origin + BigInt(Math.round(rel));
    const ms = abs / 1000000n, sub = Number(abs % 1000000n);
    const d = new Date(Number(ms));
    let s = pad(d.getUTCHours(), 2) + ":" + pad(d.getUTCMinutes(), 2) + ":" + pad(d.getUTCSeconds(), 2);
    if (digits > 0) {
      const frac = pad(d.getUTCMilliseconds(), 3) + pad(sub, 6);
      s += "." + frac.slice(0, digits);
    }
    if (withDate) s = d.toISOString().slice(0, 10) + " " + s;
    return s;
  }
  function date(rel) {
    if (mode !== "abs") return "";
    const abs = origin + BigInt(Math.round(rel || 0));
    return new Date(Number(abs / 1000000n)).toISOString().slice(0, 10);
  }
  // Round tick positions (relative ns) for a window: multiples of a nice
  // step in absolute time, about `space` px apart.
  const STEPS = [];
  for (let e = 0; e <= 12; e++) for (const m of [1, 2, 5]) STEPS.push(m * 10 ** e);
  STEPS.push(30e9, 60e9, 120e9, 300e9, 600e9, 1800e9, 3600e9);
  STEPS.sort((a, b) => a - b);
  function ticks(t0, t1, widthPx, space = 110) {
    const want = Math.max(1, widthPx / space);
    const step = STEPS.find((s) => (t1 - t0) / s <= want) || STEPS[STEPS.length - 1];
    const o = mode === "abs" ? Number(origin % BigInt(step)) : 0;
    let first = Math.ceil((t0 + o) / step) * step - o;
    const out = [];
    for (let t = first; t <= t1 && out.length < 1000; t += step) out.push(t);
    return { step, ticks: out };
  }
  function digitsFor(step) { return step >= 1e9 ? 0 : step >= 1e6 ? 3 : step >= 1e3 ? 6 : 9; }
  // For exports, exact and machine-readable: "2022-11-30 04:48:07.404123456"
  // (UTC) for wall-clock times, else the relative ns (the server's export writes the same).
  function exact(rel) { return mode === "abs" ? fmt(rel, 9, true) : String(Math.round(rel)); }
  return { fmt, date, ticks, digitsFor, exact, mode };
}

// Colour-blind-safe palettes: Okabe & Ito (2008) and Paul Tol's "muted".
export const OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999"];
export const TOL_MUTED = ["#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677", "#882255", "#AA4499"];
// Lanes and curves: distinct hues first (no two of the first eight alike: no twin greens).
export const LANE_COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#882255", "#999933",
  "#332288", "#C9B200", "#AA4499", "#117733", "#88CCEE", "#CC6677"];

// Memory categories (src/analysis/categories.h), in PyTorch's names, each a
// colour-blind-safe hue (Okabe & Ito, Tol) in a light- and a dark-mode shade.
export const CATEGORY_COLOURS = {
  PARAMETER: ["#0072B2", "#3A9AD9"], OPTIMIZER_STATE: ["#E69F00", "#F0B030"], PARAMETER_OR_STATE: ["#56B4E9", "#8CCDF2"],
  INPUT: ["#C9B200", "#F0E442"], TEMPORARY: ["#CC79A7", "#E09CC4"], ACTIVATION: ["#009E73", "#2BC497"],
  GRADIENT: ["#D55E00", "#F07A2A"], AUTOGRAD_DETAIL: ["#882255", "#C0609A"], Unknown: ["#A0A4AC", "#6E747E"],
};
// The label of the memory no allocation of the trace accounts for.
export const BEFORE_TRACE = "(allocated before trace)";
// The category chart's band of it (category_curves cat -1).
export const BEFORE_TRACE_CAT = -1;

export function isDark() {
  return typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches;
}

export function categoryColour(name, dark = isDark()) {
  const c = CATEGORY_COLOURS[name] || CATEGORY_COLOURS.Unknown;
  return c[dark ? 1 : 0];
}

export function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}
