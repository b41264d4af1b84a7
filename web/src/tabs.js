// tabs.js — the profiler's navigation: one tab per view, the number keys,
// Ctrl+F (the current view's search box), Esc (closes its detail panel) and
// the address: `#view=operators&rank=0&sel=...` keeps the view, the rank (its
// own number, as the header names it: rankNumbers) and the selection, so
// that a copied link reopens the same state.  A change of view, rank or
// selection is a new history entry (Back returns to it: isNavigation); the
// rest of a view's state (sort, zoom) only rewrites the current one.
// Every view draws through drawfail.js (drawTab): one that throws says why
// in its pane, and the tabs keep working.
//
// A view is an object with (all optional but show):
//   show(rank)            draws the view for a rank (called when it becomes visible or the rank changes)
//   hide()                the tab was left
//   focusSearch() -> bool focuses its search box (Ctrl+F)
//   closeDetail() -> bool closes its detail panel (Esc); false when none was open
//   select(sel)           restores a selection from the address
//   unselect()            drops it (an address without one); else closeDetail(true) does
//   hashExtra() -> {k: v} more of its state for the address (sort, grouping ...)
//   restore(params)       the same, read back

import { drawOrSay } from "./drawfail.js";

export const TAB_VIEWS = [
  { id: "overview", label: "Overview", key: "1" },
  { id: "operators", label: "Operators", key: "2" },
  { id: "kernels", label: "Kernels", key: "3" },
  { id: "trace", label: "Trace", key: "4" },
  { id: "memory", label: "Memory", key: "5" },
  { id: "modules", label: "Modules", key: "6" },
  { id: "distributed", label: "Distributed", key: "7" },
  { id: "compare", label: "Compare", key: "8" },
  { id: "cluster", label: "Cluster", key: "9" },
];

// "#view=kernels&rank=1&sel=aten%3A%3Amm" -> {view: "kernels", rank: 1, sel: "aten::mm"} (+ any other keys, as text)
export function parseTabHash(hash) {
  const out = {};
  const h = String(hash || "").replace(/^#/, "");
  if (!h) return out;
  for (const part of h.split("&")) {
    if (!part) continue;
    const eq = part.indexOf("=");
    const k = decodeURIComponent(eq < 0 ? part : part.slice(0, eq));
    const v = eq < 0 ? "" : decodeURIComponent(part.slice(eq + 1).replace(/\+/g, "%20"));
    out[k] = v;
  }
  if (out.rank != null) { const r = parseInt(out.rank, 10); out.rank = Number.isFinite(r) && r >= 0 ? r : 0; }
  if (out.view != null && !TAB_VIEWS.some((v) => v.id === out.view)) delete out.view;
  return out;
}

// The inverse: view, rank, sel first, then the rest in key order; empty values left out.
export function formatTabHash(state) {
  const keys = ["view", "rank", "sel"].concat(Object.keys(state).filter((k) => !["view", "rank", "sel"].includes(k)).sort());
  const parts = [];
  for (const k of keys) {
    const v = state[k];
    if (v == null || v === "") continue;
    parts.push(encodeURIComponent(k) + "=" + encodeURIComponent(String(v)));
  }
  return "#" + parts.join("&");
}

// The number the address gives each rank (meta.ranks): its own rank, as the
// header says it ("rank 1 of 2"), when every rank knows its own and none
// repeats; else its place in the input (0, 1, ...), which always tells them apart.
export function rankNumbers(ranks) {
  const own = (ranks || []).map((r) => (r && Number.isInteger(r.rank) ? r.rank : -1));
  return own.every((v) => v >= 0) && new Set(own).size === own.length ? own : own.map((v, k) => k);
}

// The rank (index into meta.ranks) an address's rank= number names, or null.
export function rankOfNumber(ranks, n) {
  if (n == null) return null;
  const k = rankNumbers(ranks).indexOf(n);
  return k < 0 ? null : k;
}

// The ranks' indices in the order their numbers go (the rank picker's order:
// rank 0, 1, 2 ... 10, not the files' rank0, rank1, rank10 ...).
export function rankOrder(ranks) {
  const nums = rankNumbers(ranks);
  return nums.map((n, k) => k).sort((a, b) => nums[a] - nums[b] || a - b);
}

// Whether going from address a to address b is a step of its own in the
// history (another view, rank or selection), not a refinement of the same
// one (a sort, a zoom, a filter: those rewrite the entry they are on).
export function isNavigation(a, b) {
  const x = parseTabHash(a), y = parseTabHash(b);
  return (x.view || "") !== (y.view || "") || (x.rank ?? 0) !== (y.rank ?? 0) || (x.sel || "") !== (y.sel || "");
}

// The views that only a time side fills: hidden for inputs that can have
// none (allocator snapshots, memory timelines), their keys keeping their numbers.
export const TIME_VIEWS = ["overview", "operators", "kernels", "trace", "modules"];

// Whether every rank is a record of memory alone (its caps.memory_record: known only
// once loaded; a served rank not loaded yet has no caps, and may be a trace).
export function memoryOnly(ranks) {
  return !!ranks && ranks.length > 0 && ranks.every((r) => r && r.caps && r.caps.memory_record && !r.trace);
}

// The Memory state an address names (app.js memHash writes it).
export function memStateOf(p) {
  const num = (v) => (v != null && v !== "" && Number.isFinite(+v) ? +v : null);
  return { t0: num(p.t0), t1: num(p.t1), group: p.group || null, mode: p.mode || null, colour: p.colour || null };
}

// Which tab a key press asks for ("1".."9"), or null; only the tabs shown count.
export function tabForKey(key, shown) {
  const v = TAB_VIEWS.find((t) => t.key === key);
  return v && shown.includes(v.id) ? v.id : null;
}

export class TabRouter {
  // nav: the element that holds the tab buttons; panes: id -> element;
  // views: id -> view object (tabs.js header); opts.onChange(view) after a switch.
  constructor(nav, panes, views, opts = {}) {
    this.nav = nav;
    this.panes = panes;
    this.views = views;
    this.opts = opts;
    this.shown = TAB_VIEWS.map((t) => t.id);
    this.current = null;
    this.rank = 0;
    this.params = {};       // the other keys of the address
    this.writing = false;
    this.restoring = 0;     // > 0 while an address is being opened: its writes rewrite it, push nothing
    this.lastHash = null;   // the address last written or opened
  }

  // Which tabs exist (Distributed only with several ranks); renders the buttons.
  setShown(ids) {
    this.shown = TAB_VIEWS.map((t) => t.id).filter((id) => ids.includes(id));
    this.nav.innerHTML = this.shown.map((id) => {
      const t = TAB_VIEWS.find((x) => x.id === id);
      return `<button class="vtab" role="tab" data-view="${id}" id="tab-${id}" title="${t.label} (key ${t.key})"><span class="k">${t.key}</span>${t.label}</button>`;
    }).join("");
    for (const id of Object.keys(this.panes)) if (!this.shown.includes(id)) this.panes[id].hidden = true;
    this.markTabs();
  }

  markTabs() {
    this.nav.querySelectorAll(".vtab").forEach((b) => {
      const on = b.dataset.view === this.current;
      b.classList.toggle("on", on);
      b.setAttribute("aria-selected", on ? "true" : "false");
    });
  }

  bind(win) {
    this.nav.addEventListener("click", (e) => {
      const b = e.target.closest && e.target.closest(".vtab");
      if (b) this.go(b.dataset.view);
    });
    win.addEventListener("keydown", (e) => this.key(e), true);
    // Back / Forward (popstate), or an address typed or pasted (hashchange): both
    // may come for one step, so an address already shown is not opened again
    const nav = () => { if (!this.writing && win.location.hash !== this.lastHash) this.fromHash(win.location.hash); };
    win.addEventListener("hashchange", nav);
    win.addEventListener("popstate", nav);
    this.win = win;
  }

  // Key handling: capture phase, so that the views' own keys see only what is left.
  key(e) {
    const inField = e.target && e.target.closest && e.target.closest("input, select, textarea");
    if ((e.ctrlKey || e.metaKey) && !e.altKey && (e.key === "f" || e.key === "F")) {
      const v = this.views[this.current];
      if (v && v.focusSearch && v.focusSearch()) { e.preventDefault(); e.stopPropagation(); }
      return;
    }
    if (e.key === "Escape") {
      if (inField && e.target.blur) { e.target.blur(); }
      const v = this.views[this.current];
      if (v && v.closeDetail && v.closeDetail()) { e.preventDefault(); e.stopPropagation(); }
      return;
    }
    if (inField || e.ctrlKey || e.metaKey || e.altKey) return;
    const id = tabForKey(e.key, this.shown);
    if (id) { e.preventDefault(); e.stopPropagation(); this.go(id); }
  }

  // Switches to view id (keeping the rank), writes the address.
  async go(id, sel) {
    if (!this.shown.includes(id)) return;
    const old = this.current;
    if (old !== id) {
      if (old && this.views[old] && this.views[old].hide) this.views[old].hide();
      for (const [k, el] of Object.entries(this.panes)) el.hidden = k !== id;
      this.current = id;
      this.params = {};
      this.markTabs();
    }
    const v = this.views[id];
    if (v) {
      await this.drawTab(id, async () => {
        await v.show(this.rank);
        if (sel != null && sel !== "" && v.select) await v.select(sel);
        else if (this.restoring) { // an address without a selection (Back to before one was made): none
          if (v.unselect) await v.unselect();
          else if (v.closeDetail) v.closeDetail(true);
        }
      });
    }
    this.writeHash();
    if (this.opts.onChange) this.opts.onChange(id);
  }

  // The rank switcher changed: the current view follows.
  async setRank(rank) {
    this.rank = rank;
    const v = this.views[this.current];
    if (v) await this.drawTab(this.current, () => v.show(rank));
    this.writeHash();
  }

  // Draws tab id (draw: its show, and what follows it): an error it throws is
  // said in the tab's pane (drawfail.js), not thrown on, so that the switch
  // completes and the other tabs still open.
  drawTab(id, draw) { return drawOrSay(this.panes[id], draw); }

  // The address for the current state.
  hash() {
    const v = this.views[this.current];
    const nums = this.opts.ranks ? rankNumbers(this.opts.ranks()) : null;
    const st = Object.assign({ view: this.current, rank: nums && nums[this.rank] != null ? nums[this.rank] : this.rank }, v && v.hashExtra ? v.hashExtra() : {});
    return formatTabHash(st);
  }

  // Writes the address: a new history entry for a step of navigation (another
  // view, rank or selection), else the current entry rewritten; the first
  // write of the page (its opening state) and those of an address being
  // opened (Back) push nothing.
  writeHash() {
    if (!this.win) return;
    const h = this.hash(), cur = this.win.location.hash;
    this.lastHash = h;
    if (cur === h) return;
    const push = this.wrote && !this.restoring && isNavigation(cur, h);
    this.wrote = true;
    this.writing = true;
    try { this.win.history[push ? "pushState" : "replaceState"](null, "", h); } catch { this.win.location.hash = h; }
    this.writing = false;
  }

  // Opens the state an address names (a pasted link, or back/forward).
  async fromHash(hash) {
    this.restoring++;
    this.lastHash = hash;
    try { return await this.openHash(hash); } finally { this.restoring--; }
  }

  async openHash(hash) {
    const p = parseTabHash(hash);
    if (this.opts.ranks) p.rank = rankOfNumber(this.opts.ranks(), p.rank); // the rank's own number -> its index
    if (p.rank != null && p.rank !== this.rank && this.opts.onRank) await this.opts.onRank(p.rank);
    if (p.rank != null) this.rank = p.rank;
    const id = p.view && this.shown.includes(p.view) ? p.view : this.current;
    if (!id) return false;
    const v = this.views[id];
    if (v && v.restore) v.restore(p);
    await this.go(id, p.sel);
    return !!p.view;
  }
}
