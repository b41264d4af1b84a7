// modules.js — the Modules view: the nn.Module hierarchy of perf.modules
// (web/DATA.md) as a tree with occurrences, operator count, host and device
// time (a bar of each row's share of its root); where the trace has none,
// how to record it (perf.modules_hint).

import { escapeHtml, groupDigits } from "./format.js";
import { pvNs, pvWhy, pvNoPerf } from "./perfview.js";
import { VirtualRows } from "./perftable.js";

// children lists and roots of the flat module list (parent index, -1 = root).
export function moduleTree(mods) {
  const kids = mods.map(() => []), roots = [];
  mods.forEach((m, i) => { if (m.parent >= 0 && m.parent < mods.length && m.parent !== i) kids[m.parent].push(i); else roots.push(i); });
  return { kids, roots };
}

// The rows to show: depth-first, children of collapsed nodes left out; with a
// filter, the modules whose name holds it and their ancestors (all open).
export function moduleRows(mods, tree, open, text) {
  const out = [];
  const t = String(text || "").toLowerCase().trim();
  let keep = null;
  if (t) {
    keep = new Uint8Array(mods.length);
    mods.forEach((m, i) => {
      if (String(m.name).toLowerCase().includes(t)) for (let j = i, g = 0; j >= 0 && !keep[j] && g < 1000; j = mods[j].parent, g++) keep[j] = 1;
    });
  }
  const walk = (i, depth) => {
    if (keep && !keep[i]) return;
    out.push({ i, depth });
    if (keep || open.has(i)) for (const k of tree.kids[i]) walk(k, depth + 1);
  };
  for (const r of tree.roots) walk(r, 0);
  return out;
}

const MODULE_ROW_H = 26; // px, a row of the tree (one line: VirtualRows)

export class ModulesView {
  constructor(el, app) {
    this.el = el;
    this.app = app;
    this.rank = -1;
    this.open = new Set();
    this.sel = null;
  }

  async show(rank) {
    const perf = await this.app.perfOf(rank);
    if (rank === this.rank && perf === this.perf && this.el.childElementCount) return;
    this.rank = rank;
    this.perf = perf;
    if (!perf) { pvWhy(this.el, "No modules in this input", pvNoPerf(this.app.meta.ranks[rank])); this.mods = null; return; }
    const mods = perf.modules || [];
    if (!mods.length) {
      this.mods = null;
      const hint = perf.modules_hint ? perf.modules_hint.charAt(0).toUpperCase() + perf.modules_hint.slice(1).replace(/\.?$/, ".") : "";
      pvWhy(this.el, "No module hierarchy in this trace", "The trace has no nn.Module ranges (python_function events of module calls).",
        hint ? escapeHtml(hint) : "Record them with <code>torch.profiler.profile(with_stack=True, with_modules=True)</code> (PyTorch 1.10+).");
      return;
    }
    this.mods = mods;
    this.tree = moduleTree(mods);
    this.open = new Set();
    for (let i = 0; i < mods.length; i++) if ((mods[i].depth || 0) < 2) this.open.add(i);
    this.el.innerHTML = `<section class="panel pv-main"><div class="bar"><h2>Modules</h2>
      <input type="search" class="pv-search" placeholder="search modules" size="28" title="filter as you type (Ctrl+F)">
      <span class="muted pv-count"></span><span class="spacer"></span>
      <button class="pv-expand">Expand all</button><button class="pv-collapse">Collapse all</button></div>
      <div class="table-wrap pv-tree"><table><thead><tr><th>Module</th><th class="n">Occurrences</th><th class="n">Operators</th><th class="n">Host time</th><th class="n">Device time</th><th>Device share of its root</th></tr></thead><tbody></tbody></table></div></section>`;
    const q = (s) => this.el.querySelector(s);
    this.search = q(".pv-search");
    // a tree of thousands of modules: only the rows in sight are in the DOM
    this.vr = new VirtualRows(q(".pv-tree"), q("tbody"), { rowHeight: MODULE_ROW_H, columns: 6, rowHtml: (j) => this.rowHtml(j) });
    let tm = 0;
    for (const ev of ["input", "search"]) this.search.addEventListener(ev, () => { clearTimeout(tm); tm = setTimeout(() => this.render(), 150); });
    q(".pv-expand").addEventListener("click", () => { mods.forEach((m, i) => this.open.add(i)); this.render(); });
    q(".pv-collapse").addEventListener("click", () => { this.open.clear(); this.render(); });
    q("tbody").addEventListener("click", (e) => {
      const tr = e.target.closest("tr[data-i]");
      if (!tr) return;
      const i = +tr.dataset.i;
      if (e.target.closest(".tw")) { if (this.open.has(i)) this.open.delete(i); else this.open.add(i); }
      this.sel = mods[i].name;
      this.render();
      this.app.tabs && this.app.tabs.writeHash();
    });
    this.render();
  }

  rootOf(i) { let j = i, g = 0; while (this.mods[j].parent >= 0 && g++ < 1000) j = this.mods[j].parent; return j; }

  render() {
    this.rows = moduleRows(this.mods, this.tree, this.open, this.search.value);
    this.vr.setCount(this.rows.length);
    this.el.querySelector(".pv-count").textContent = `${groupDigits(this.rows.length)} of ${groupDigits(this.mods.length)} modules shown`;
  }

  // The j-th row shown, as HTML.
  rowHtml(j) {
    const mods = this.mods, { i, depth } = this.rows[j];
    const m = mods[i], kids = this.tree.kids[i].length, root = mods[this.rootOf(i)];
    const share = root.device_ns > 0 ? m.device_ns / root.device_ns : root.host_ns > 0 ? m.host_ns / root.host_ns : 0;
    const tw = kids ? `<span class="tw">${this.open.has(i) || this.search.value ? "▾" : "▸"}</span>` : '<span class="tw none"></span>';
    const short = depth && m.name.startsWith(mods[m.parent].name + ".") ? m.name.slice(mods[m.parent].name.length + 1) : m.name;
    const cls = (j & 1 ? "odd" : "") + (m.name === this.sel ? " sel" : "");
    return `<tr data-i="${i}"${cls ? ` class="${cls.trim()}"` : ""} style="height:${MODULE_ROW_H}px"><td class="name" style="padding-left:${8 + depth * 16}px" title="${escapeHtml(m.name)}">${tw}${escapeHtml(short)}</td>` +
      `<td class="n">${groupDigits(m.occurrences)}</td><td class="n">${groupDigits(m.operators)}</td><td class="n">${pvNs(m.host_ns)}</td><td class="n">${pvNs(m.device_ns)}</td>` +
      `<td><span class="pv-share"><i style="width:${(share * 100).toFixed(1)}%"></i></span></td></tr>`;
  }

  focusSearch() { if (!this.search || !this.mods) return false; this.search.focus(); this.search.select(); return true; }
  closeDetail() { if (!this.sel || !this.mods) return false; this.sel = null; this.render(); return true; }
  hashExtra() { return { sel: this.sel }; }
  select(sel) {
    if (!this.mods) return;
    const i = this.mods.findIndex((m) => m.name === sel);
    if (i < 0) return;
    for (let j = this.mods[i].parent, g = 0; j >= 0 && g < 1000; j = this.mods[j].parent, g++) this.open.add(j);
    this.sel = sel;
    this.render();
    const j = this.rows.findIndex((r) => r.i === i);
    if (j >= 0) this.vr.scrollToRow(j, this.el.querySelector("thead").offsetHeight);
  }
}
