// keys.js — the page's keyboard shortcuts, one table for the handler and for
// the `?` overlay that documents them.  A shortcut that has nothing to act
// on (no memory data, a static-graph export, a rank still loading) does
// nothing: no shortcut may throw.

export const SHORTCUTS = [
  { keys: ["←"], match: ["ArrowLeft"], what: "pan the window left (a fifth of it)", act: (a, s) => a.setWindow(s.t0 - (s.t1 - s.t0) * 0.2, s.t1 - (s.t1 - s.t0) * 0.2) },
  { keys: ["→"], match: ["ArrowRight"], what: "pan the window right", act: (a, s) => a.setWindow(s.t0 + (s.t1 - s.t0) * 0.2, s.t1 + (s.t1 - s.t0) * 0.2) },
  { keys: ["+", "="], match: ["+", "="], what: "zoom in (half the window, around its middle)", act: (a, s) => a.setWindow(s.t0 + (s.t1 - s.t0) * 0.25, s.t1 - (s.t1 - s.t0) * 0.25) },
  { keys: ["-"], match: ["-"], what: "zoom out (twice the window)", act: (a, s) => a.setWindow(s.t0 - (s.t1 - s.t0) * 0.5, s.t1 + (s.t1 - s.t0) * 0.5) },
  { keys: ["0", "Esc"], match: ["0", "Escape"], what: "show everything (reset the zoom); Esc also closes this help", act: (a) => a.resetWindow() },
  { keys: ["P"], match: ["p", "P"], what: "zoom to the peak", act: (a) => a.zoomToPeak() },
  { keys: ["?"], match: ["?"], what: "show or hide this list of shortcuts", always: true, act: () => toggleHelp() },
];

// Whether the page shows a time window the time shortcuts can act on.
export function hasWindow(app) {
  const st = app && app.state, m = app && app.meta;
  if (!st || !m || !app.clock || app.isStatic) return false;
  if (app.tabs && app.tabs.current !== "memory") return false; // the other views have their own keys
  const r = m.ranks && m.ranks[st.rank];
  return !!(r && r.devices && r.devices[st.dev] && !document.querySelector("#v-memory main.grid, main.grid").hidden);
}

// The shortcut a key event stands for, or null.
export function shortcutOf(key) { return SHORTCUTS.find((s) => s.match.includes(key)) || null; }

// The keys the tab router (tabs.js), the Trace view (trace.js), the snapshot
// views (segments.js) and the tables handle themselves, listed for the overlay.
export const OTHER_KEYS = [
  { keys: ["1", "…", "9"], what: "switch view: Overview, Operators, Kernels, Trace, Memory, Modules, Distributed, Compare, Cluster (those the input has)" },
  { keys: ["Ctrl", "F"], what: "search in the view (where it has a search field)" },
  { keys: ["W", "S"], what: "Trace: zoom in / out at the pointer" },
  { keys: ["A", "D"], what: "Trace: pan left / right" },
  { keys: ["0"], what: "Trace: show the whole trace" },
  { keys: ["Esc"], what: "close a detail panel, leave a field" },
  { keys: ["←", "→"], what: "Allocator state history (snapshots), slider focused: the previous / next allocator event (Shift: 100)" },
  { keys: ["Enter"], what: "tables: go to the page typed in 'go to page'" },
];

export function helpHtml() {
  const row = (s) => `<tr><td>${s.keys.map((k) => (k === "…" ? k : `<kbd>${k}</kbd>`)).join(" ")}</td><td>${s.what}</td></tr>`;
  // one table, a section heading row each: the key columns line up across sections
  const section = (title) => `<tr class="keys-sec"><th colspan="2" scope="colgroup"><h3>${title}</h3></th></tr>`;
  return '<div class="keys-box" role="dialog" aria-label="Keyboard shortcuts"><h2>Keyboard shortcuts</h2>' +
    "<table><tbody>" + section("Memory view") + SHORTCUTS.map(row).join("") + "</tbody>" +
    "<tbody>" + section("Everywhere else") + OTHER_KEYS.map(row).join("") +
    '</tbody></table><p class="muted">Mouse: drag on a chart to zoom · double-click to reset · wheel to zoom · shift+wheel to pan · click the curve for what was live then.' +
    " The time shortcuts act on the memory charts; they do nothing where the page has no time axis.</p>" +
    '<p><button id="keys-close">Close</button></p></div>';
}

export function toggleHelp(show) {
  let el = document.getElementById("keys-help");
  if (!el) {
    el = document.createElement("div");
    el.id = "keys-help";
    el.className = "keys-help";
    el.hidden = true;
    el.innerHTML = helpHtml();
    el.addEventListener("click", (e) => { if (e.target === el || e.target.id === "keys-close") toggleHelp(false); });
    document.body.appendChild(el);
  }
  el.hidden = show == null ? !el.hidden : !show;
  return !el.hidden;
}

export function bindKeys(app) {
  const top = document.querySelector("header.top");
  if (top && !document.getElementById("btn-keys")) {
    const b = document.createElement("button");
    b.id = "btn-keys"; b.textContent = "?"; b.title = "keyboard shortcuts (?)";
    b.addEventListener("click", () => toggleHelp());
    top.appendChild(b);
  }
  window.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target.closest && e.target.closest("input, select, textarea")) return;
    const help = document.getElementById("keys-help");
    if (e.key === "Escape" && help && !help.hidden) { toggleHelp(false); return; }
    const s = shortcutOf(e.key);
    if (!s) return;
    if (!s.always && !hasWindow(app)) return;
    e.preventDefault();
    try {
      const r = s.act(app, app.state);
      if (r && typeof r.catch === "function") r.catch((err) => console.warn("memlens: shortcut " + e.key + ": " + err));
    } catch (err) { console.warn("memlens: shortcut " + e.key + ": " + err); }
  });
}
