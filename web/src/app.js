// app.js — the report page: shared state (rank, device, zoom window,
// selection), the header and selectors, and the wiring of the views.  The
// views see data only through the source (source.js).  What fails to draw
// says why where it would be (drawfail.js): a tab (tabs.js), a panel of the
// Memory view (here), an error no drawing awaited (the net, strayError).

import { makeClock, fmtBytes, groupDigits, escapeHtml, plural } from "./format.js";
import { clampWindow } from "./zoom.js";
import { pageSource } from "./source.js";
import { CurveView, TimelineView, TablesView, renderDetail, renderPeak, renderLive } from "./views.js";
import { CategoryView } from "./catview.js";
import { TabRouter, parseTabHash, rankOfNumber, rankOrder, memoryOnly, memStateOf, TIME_VIEWS } from "./tabs.js";
import { pvWhy, pvNoPerf } from "./perfview.js";
import { OverviewView } from "./overview.js";
import { OperatorsView } from "./operators.js";
import { KernelsView } from "./kernels.js";
import { ModulesView } from "./modules.js";
import { DistributedView } from "./distributed.js";
import { ClusterView } from "./cluster.js";
import { CompareView } from "./compare.js";
import { mountTrace } from "./trace.js";
import { StaticView } from "./staticview.js";
import { bindKeys } from "./keys.js";
import { unmatchedCount, unmatchedSort } from "./unmatched.js";
import { SegmentsView } from "./segments.js";
import { nextSort, mountPager } from "./tablectl.js";
import { mountUpload } from "./upload.js";
import { allocsFit, notesHtml } from "./present.js";
import { deviceOrder, defaultDevice } from "./devorder.js";
import { drawOrSay, drawsInto, sayDrawFailed } from "./drawfail.js";

class App {
  constructor(source) {
    this.source = source;
    this.state = { rank: 0, dev: 0, t0: 0, t1: 1, group: "overall", mode: "lanes", colourBy: "op", hover: -1, hoverLane: -1, selected: -1, peakBy: "by_op",
      liveT: null, liveBy: "op" };
    this.perf = { lastRedrawMs: 0, redraws: 0 };
  }

  dev() { return this.meta.ranks[this.state.rank].devices[this.state.dev]; }

  async start() {
    const t = performance.now();
    this.meta = await this.source.getMeta();
    const $ = (id) => document.getElementById(id);
    this.curve = new CurveView($("curve"), this);
    this.timeline = new TimelineView($("timeline"), $("tl-over"), $("tl-tip"), $("tl-note"), this);
    this.cats = new CategoryView($("p-categories"), $("catchart"), this);
    this.tables = new TablesView(this);
    this.guardPanels();
    this.header();
    this.bind();
    this.follow();
    this.upload = mountUpload(this); // served pages: drop zone, "Add a run" (upload.js)
    const hash = parseTabHash(typeof location !== "undefined" ? location.hash : "");
    // The rank: the address's, else the one with the highest memory peak (that is the question), else the first.
    let best = [0, 0], bestV = -1;
    this.meta.ranks.forEach((r, ri) => {
      if (r.lazy != null) { if (r.best_peak > bestV) { bestV = r.best_peak; best = [ri, 0]; } return; } // a job's rank: not parsed for this
      (r.devices || []).forEach((d, di) => { if (d.peak && d.peak.v > bestV) { bestV = d.peak.v; best = [ri, di]; } });
    });
    const named = rankOfNumber(this.meta.ranks, hash.rank); // the address names a rank by its own number
    const rank = named != null ? named : best[0];
    this.bestDev = new Map((this.meta.ranks[best[0]] || {}).lazy != null ? [] : [[best[0], best[1]]]);
    if (this.source.ensureRank) await this.loadRank(rank); // served: ranks are imported when first viewed
    this.setupTabs(rank);
    // The view: the address's; else Overview when the rank has a time side (not a memory format), else Memory.
    const perf = await this.perfOf(rank);
    this.tabs.rank = rank;
    $("sel-rank").value = String(rank);
    if (hash.view && this.tabs.shown.includes(hash.view)) await this.tabs.fromHash(location.hash);
    else if (this.source.comparePairs && this.source.comparePairs().length) await this.tabs.go("compare"); // `memlens diff -o`: the comparison first
    else if (this.tabs.shown.includes("cluster") && this.meta.ranks.length > 8) await this.tabs.go("cluster"); // a job: its ranks side by side
    else {
      // an input that records memory first (a snapshot, a memory timeline, an Ascend export: its caps) opens there
      const r = this.meta.ranks[rank] || {}, memFirst = !!(r.caps && r.caps.memory_first) && (r.devices || []).length > 0;
      await this.tabs.go(perf && !memFirst ? "overview" : "memory");
    }
    $("loading").remove();
    if (this.upload) this.upload.empty(); // no run yet: the drop zone
    this.perf.startMs = performance.now() - t;
    window.__memlens.ready = true;
  }

  // The Memory view's panels each draw through drawfail.js: one that throws
  // (the category chart of a damaged page) says why in its place, and the
  // others still draw.  Every call of these draws goes through it (a zoom,
  // a filter, a click), as the router's do for the tabs.
  guardPanels() {
    const $ = (id) => document.getElementById(id);
    for (const [panel, part, method] of [["p-curves", this.curve, "refresh"], ["p-categories", this.cats, "refresh"],
      ["p-timeline", this.timeline, "draw"], ["p-tables", this.tables, "render"]]) part[method] = drawsInto($(panel), part[method].bind(part));
    this.drawPeak = drawsInto($("p-peak"), renderPeak);
    this.drawLive = drawsInto($("p-live"), renderLive);
    this.drawDetail = drawsInto($("p-detail"), renderDetail);
    // the net: what no drawing awaited (an event handler's, a timer's) is said
    // on the tab shown, which stays (the browser logs it already)
    window.addEventListener("unhandledrejection", (e) => this.strayError(e.reason));
    window.addEventListener("error", (e) => { if (e.error instanceof Error) this.strayError(e.error); }); // not a ResizeObserver's note
  }

  strayError(e) {
    const id = this.tabs && this.tabs.current;
    if (id) sayDrawFailed(this.tabs.panes[id], e, true);
  }

  // The perf object of a rank (null: none; the rank's perfWhy says why).
  // quiet: for another rank than the one shown (not loaded: null).
  async perfOf(rank, quiet) {
    const r = this.meta.ranks[rank];
    if (!r || !this.source.getPerf) return null;
    if (quiet && r.loaded === false) return null;
    try { return await this.source.getPerf(rank); }
    catch (e) { if (!quiet) r.perfWhy = "Cannot read this rank's time data: " + e.message; return null; }
  }

  // The tabs and the views behind them (tabs.js).
  setupTabs() {
    const $ = (id) => document.getElementById(id), st = this.state;
    const ids = ["overview", "operators", "kernels", "trace", "memory", "modules", "distributed", "compare", "cluster"];
    const panes = {};
    for (const id of ids) panes[id] = $("v-" + id);
    const app = this;
    const memory = {
      show: (rank) => this.showMemory(rank),
      hide: () => { $("lab-dev").hidden = true; },
      focusSearch: () => { if ($("v-memory").querySelector("main.grid").hidden) return false; $("f-text").focus(); $("f-text").select(); return true; },
      closeDetail: () => false,    // Esc keeps its meaning there: reset the zoom
      hashExtra: () => Object.assign({ sel: st.selected >= 0 && this.allocs ? String(this.idOf(st.selected)) : null, dev: st.dev || null }, this.memHash()),
      restore: (p) => { this.wantDev = p.dev != null ? +p.dev : null; this.wantMem = memStateOf(p); },
      select: (sel) => this.selectId(+sel),
      unselect: () => (st.selected >= 0 && this.allocs ? this.select(-1) : null),
    };
    // The Trace view is web/src/trace.js (bundled when present): mountTrace(el, source, state) ->
    // {view, ready, setRank(k), redraw(), destroy()}; this adapts its handle to the tab's methods.
    const trace = {
      rank: -1,
      async show(rank) {
        const el = $("trace-mount");
        const perf = await app.perfOf(rank);
        if (!perf && !(app.meta.ranks[rank] || {}).trace) { // the Trace view needs slices, not the perf object
          if (app.traceHandle && app.traceHandle.destroy) app.traceHandle.destroy();
          app.traceHandle = null;
          pvWhy(el, (app.meta.ranks[rank] || {}).summarised ? "A summarised rank" : "No trace in this input", pvNoPerf(app.meta.ranks[rank]));
          return;
        }
        if (typeof mountTrace !== "function") { pvWhy(el, "Trace", "This build of memlens has no trace view (web/src/trace.js)."); return; } // eslint-disable-line no-undef
        if (!app.traceHandle) {
          el.innerHTML = "";
          app.traceHandle = mountTrace(el, app.source, { rank, app, tabs: app.tabs }) || {}; // eslint-disable-line no-undef
          this.rank = rank;
          el.addEventListener("click", () => setTimeout(() => app.tabs.current === "trace" && app.tabs.writeHash(), 250));
          if (app.traceHandle.ready) await app.traceHandle.ready;
        } else if (this.rank !== rank && app.traceHandle.setRank) { this.rank = rank; await app.traceHandle.setRank(rank); }
        else if (app.traceHandle.redraw) app.traceHandle.redraw();    // its canvas was hidden: sizes again
      },
      focusSearch() {
        const i = $("trace-mount").querySelector(".tr-search, input[type=search]");
        if (!i) return false;
        i.focus(); i.select();
        return true;
      },
      closeDetail() {
        const v = app.traceHandle && app.traceHandle.view;
        if (!v || !v.sel || !v.select) return false;
        v.select(null);
        return true;
      },
      async select(sel) {
        const v = app.traceHandle && app.traceHandle.view;
        if (v && v.select && sel !== "" && sel != null && Number.isFinite(+sel)) await v.select(+sel, true);
      },
      hashExtra() {
        const v = app.traceHandle && app.traceHandle.view;
        return { sel: v && v.sel && v.sel.id != null ? String(v.sel.id) : null };
      },
    };
    this.views = {
      overview: new OverviewView(panes.overview, this), operators: new OperatorsView(panes.operators, this),
      kernels: new KernelsView(panes.kernels, this), trace, memory, modules: new ModulesView(panes.modules, this),
      distributed: new DistributedView(panes.distributed, this), compare: new CompareView(panes.compare, this),
      cluster: new ClusterView(panes.cluster, this),
    };
    this.tabs = new TabRouter($("vtabs"), panes, this.views, {
      onRank: (k) => this.switchRank(k, true),
      ranks: () => this.meta.ranks,
      // the device picker: in the Memory view, when the rank has a device to pick (else noMemory says why)
      onChange: (id) => { $("lab-dev").hidden = id !== "memory" || !((this.meta.ranks[this.tabs.rank] || {}).devices || []).length; if (id !== "memory") this.rankLine(this.tabs.rank); },
    });
    // Compare: a report of `memlens diff -o` (its pairs), or any served page (two runs, or a hint to add one)
    const pairs = this.source.comparePairs ? this.source.comparePairs() : null;
    this.tabs.setShown(this.shownViews());
    this.tabs.bind(window);
  }

  // The tabs this input can fill: Distributed with several ranks, Compare with
  // two runs (or a served page, which can add one), Cluster for a job; the
  // time views not for inputs that hold only memory (snapshots, timelines).
  shownViews() {
    const m = this.meta, pairs = this.source.comparePairs ? this.source.comparePairs() : null, memOnly = memoryOnly(m.ranks);
    return ["overview", "operators", "kernels", "trace", "memory", "modules", "distributed", "compare", "cluster"].filter((id) =>
      (id !== "distributed" || m.ranks.length > 1 || m.ranks.some((r) => r.world_size > 1)) &&
      (id !== "compare" || (pairs ? pairs.length > 0 : !!this.source.ensureRank)) &&
      (id !== "cluster" || m.cluster) && !(memOnly && TIME_VIEWS.includes(id)));
  }

  // The Memory view's state in the address (when not its default): the zoom
  // window (t0, t1: ns in the device's time base), the curve's grouping, the
  // timeline's mode and colouring.
  memHash() {
    const st = this.state, d = this.tabs && this.tabs.current === "memory" && this.memRank >= 0 ? this.dev() : null;
    if (!d || d.static) return {};
    const full = st.t0 <= d.t0 && st.t1 >= (d.t1 > d.t0 ? d.t1 : d.t0 + 1);
    return { t0: full ? null : Math.round(st.t0), t1: full ? null : Math.round(st.t1), group: st.group !== "overall" ? st.group : null,
      mode: st.mode !== "lanes" ? st.mode : null, colour: st.colourBy !== "op" ? st.colourBy : null };
  }

  // Applies a Memory state read from an address (memStateOf); whatever it
  // leaves out is the default (an address of before a zoom, Back to it).
  async applyMem(w) {
    const st = this.state, $ = (id) => document.getElementById(id), d = this.dev();
    if (!d || d.static) return;
    const g = [...$("sel-group").options].find((o) => o.value === w.group && !o.disabled) ? w.group : "overall";
    st.group = g; $("sel-group").value = g;
    this.setMode(w.mode === "stacked" ? "stacked" : "lanes", true);
    this.setColour(w.colour === "category" ? "category" : "op", true);
    const end = d.t1 > d.t0 ? d.t1 : d.t0 + 1;
    if (w.t0 != null && w.t1 != null && w.t1 > w.t0) await this.setWindow(w.t0, w.t1);
    else if (st.t0 !== d.t0 || st.t1 !== end) await this.setWindow(d.t0, end);
    else await this.redraw();
  }

  // The timeline's mode (lanes or stacked) and colouring (op or category).
  setMode(m, quiet) {
    const $ = (id) => document.getElementById(id);
    this.state.mode = m;
    $("seg-mode").querySelectorAll("button").forEach((b) => b.classList.toggle("on", b.dataset.mode === m));
    if (quiet) return null;
    if (this.tabs) this.tabs.writeHash();
    return this.timelineData(m === "stacked" ? this.refreshStackBase() : Promise.resolve()).then((ok) => ok && this.timeline.draw());
  }

  setColour(c, quiet) {
    this.state.colourBy = c;
    document.getElementById("seg-colour").querySelectorAll("button").forEach((b) => b.classList.toggle("on", b.dataset.colour === c));
    if (quiet) return;
    if (this.tabs) this.tabs.writeHash();
    this.timeline.draw();
  }

  // From the Cluster view: rank k in view ("memory" or "trace"), zoomed to
  // winFn() ([t0, t1) in the rank's time base, asked once the rank is
  // loaded) unless null; a rank without that view opens where it has
  // something (Memory, else Overview).
  async openRankAt(k, view, winFn) {
    if (this.source.ensureRank) await this.loadRank(k);
    const r = this.meta.ranks[k] || {};
    document.getElementById("sel-rank").value = String(k);
    this.tabs.rank = k;
    const perf = await this.perfOf(k, true);
    const hasMem = (r.devices || []).length > 0, hasTrace = !!(perf || r.trace);
    const go = view === "memory" ? (hasMem ? "memory" : hasTrace ? "trace" : "overview") : hasTrace ? "trace" : hasMem ? "memory" : "overview";
    await this.tabs.go(go);
    const win = winFn ? winFn() : null;
    if (!win) return;
    if (go === "memory" && this.dev()) await this.setWindow(win[0], win[1]);
    else if (go === "trace" && this.traceHandle && this.traceHandle.view && this.traceHandle.view.setWindow) {
      this.traceHandle.view.setWindow(win[0], win[1]);
    }
    this.tabs.writeHash();
  }

  // The rank switcher: loads the rank (served), then the current view shows it.
  async switchRank(k, fromHash) {
    if (this.source.ensureRank) await this.loadRank(k);
    document.getElementById("sel-rank").value = String(k);
    if (!fromHash) await this.tabs.setRank(k);
  }

  // The Memory view for a rank: its device with the highest peak (or the address's), or why there is none.
  async showMemory(rank) {
    const $ = (id) => document.getElementById(id);
    $("lab-dev").hidden = false;
    const r = this.meta.ranks[rank];
    if (!r || !(r.devices || []).length) { this.noMemory(rank); return; }
    $("mem-why").hidden = true;
    $("v-memory").querySelector("main.grid").hidden = false;
    $("sel-dev").disabled = false;
    let dev = this.wantDev != null && this.wantDev < r.devices.length ? this.wantDev : null;
    this.wantDev = null;
    if (dev == null && this.memRank === rank) dev = this.state.dev;
    if (dev == null) dev = defaultDevice(r.devices.map((d) => ({ id: d.id, peak: d.peak ? d.peak.v : null }))); // the accelerator with the highest peak
    const want = this.wantMem;
    this.wantMem = null;
    if (this.memRank !== rank || this.state.dev !== dev) {
      this.memRank = rank;
      await this.openDevice(rank, dev);
      if (want) await this.applyMem(want);
    } else {
      this.metaLine();
      if (this.showStatic(this.dev())) return; // static graphs: their own view again
      this.curve.resize(); this.cats.resize();
      if (want) await this.applyMem(want);
      else await this.redraw();
    }
  }

  // A rank without memory data: say so, how to record it, with what its
  // importer noted (often the reason: a trace recorded without profile_memory).
  noMemory(rank) {
    const $ = (id) => document.getElementById(id), m = this.meta, r = m.ranks[rank] || {};
    $("v-memory").querySelector("main.grid").hidden = true;
    $("sel-dev").disabled = true;
    $("sel-dev").innerHTML = "";
    this.memRank = -1;
    $("lab-dev").hidden = true;
    this.rankLine(rank);
    const notes = (r.notes || []).concat(m.skipped || []);
    const el = $("mem-why");
    el.hidden = false;
    if (r.summarised) { // a report of a job beyond its size budget
      el.innerHTML = "<b>A summarised rank.</b><div class=\"why\">" + escapeHtml(r.perfWhy.charAt(0).toUpperCase() + r.perfWhy.slice(1)) +
        ". Its peaks and step figures are in the Cluster view (key 9).</div>";
      return;
    }
    // a trace recorded with profile_memory on that allocated nothing: its note (kineto.c) says so, and
    // the advice to turn it on would be wrong
    const profiled = notes.some((n) => n.startsWith("memory profiling was on"));
    el.innerHTML = "<b>Nothing to show: no memory data in this input.</b>" + (profiled ? "" :
      '<div class="why">Record the memory with <code>torch.profiler.profile(profile_memory=True, record_shapes=True, with_stack=True)</code>: ' +
      "the trace then holds a [memory] event per allocation and free. A memory snapshot (<code>torch.cuda.memory._record_memory_history()</code>, then <code>_dump_snapshot()</code>) works too.</div>") +
      notes.map((n) => '<div class="why">' + escapeHtml(n) + "</div>").join("");
  }

  // The header line of a rank, when no device is open.
  rankLine(rank) {
    const r = this.meta.ranks[rank];
    if (!r) return;
    const parts = [`format <b>${escapeHtml(r.format || "?")}</b>`];
    if (r.world_size > 0) parts.push(`rank <b>${r.rank}</b> of ${r.world_size}`);
    const peaks = (r.devices || []).filter((d) => d.peak);
    if (peaks.length) parts.push(`${peaks.length} device${peaks.length > 1 ? "s" : ""} with memory data`);
    document.getElementById("hdr-meta").innerHTML = parts.join(" · ");
    const notes = (r.notes || []).concat(this.meta.skipped || []);
    document.getElementById("notes").innerHTML = notesHtml(notes); // the important ones open
  }

  // Selects the allocation with a global id (from the address).
  async selectId(id) {
    if (!(id >= 0) || !this.allocs) return;
    let k = this.allocs.localOf ? this.allocs.localOf(id) : id < this.allocs.n ? id : -1;
    if (k < 0 && this.source.windowed) {
      const st = this.state;
      this.allocs = await this.source.getAllocs(st.rank, st.dev, st.t0, st.t1, this.timeline.W(), id);
      this.timeline.setData(this.allocs);
      k = this.allocs.localOf(id);
    }
    if (k >= 0) await this.select(k);
  }

  // Served pages: imports rank k on the server, showing its progress.
  async loadRank(k) {
    const el = document.getElementById("loading"), note = document.getElementById("rank-progress");
    const r = this.meta.ranks[k];
    if (!r || r.loaded) return;
    const show = (s) => {
      const text = `Loading ${s.path.split("/").pop()} (${s.bytes >= 0 ? fmtBytes(s.bytes) + ", " : ""}${s.state}, ${(+s.seconds).toFixed(1)} s)…`;
      if (el) el.textContent = text;
      if (note) { note.hidden = false; note.textContent = text; }
    };
    show(r.slot);
    try {
      await this.source.ensureRank(k, show);
      if (note) note.hidden = true;
    } catch (e) {
      const msg = "Cannot load this rank: " + e.message;
      if (el) el.textContent = msg;
      if (note) { note.hidden = false; note.textContent = msg; }
    }
    this.header();
  }

  // `memlens serve DIR` follows DIR: traces written there become ranks (new runs or spans) here
  follow() {
    const el = document.getElementById("follow-note");
    if (!this.source.followRanks || !this.meta.follow) return;
    let added = 0;
    const say = () => { el.textContent = `following the served folder (${this.meta.follow})` + (added ? ` · ${added} new trace${added > 1 ? "s" : ""} since this page opened` : ": new traces appear here"); };
    el.hidden = false;
    say();
    this.source.followRanks((n) => { added += n; say(); this.header(); });
  }

  header() {
    const m = this.meta, $ = (id) => document.getElementById(id);
    const names = m.inputs && m.inputs.length ? m.inputs : m.ranks.map((r) => r.path);
    $("hdr-title").textContent = names.join(", ");
    document.title = "memlens — " + names.map((x) => x.replace(/\/+$/, "").split("/").pop()).join(", ");
    const rs = $("sel-rank");
    // a report of `memlens diff -o`: each rank is a base or a new run (the same file names often)
    const role = new Map();
    for (const p of (this.source.comparePairs ? this.source.comparePairs() : null) || []) { role.set(p.base_rank, "base "); role.set(p.new_rank, "new "); }
    // a TensorBoard logdir (`memlens serve LOGDIR`): its runs beside the ranks, the ranks of the run shown
    const runs = [...new Set(m.ranks.map((r) => runPlace(r)).filter(Boolean).map((p) => p.run))];
    const cur = runPlace(m.ranks[this.tabs ? this.tabs.rank : this.state.rank] || {}), run = cur ? cur.run : runs[0];
    $("lab-run").hidden = runs.length < 2;   // one run (or none): nothing to pick
    $("sel-run").innerHTML = runs.map((x) => `<option value="${escapeHtml(x)}">${escapeHtml(x)}</option>`).join("");
    if (runs.length) $("sel-run").value = run;
    const span = (r) => { const p = runPlace(r); return p && p.spans > 1 ? `span ${p.span} · ` : ""; };
    rs.innerHTML = rankOrder(m.ranks).map((k) => [m.ranks[k], k]).map(([r, k]) => `<option value="${k}"${runs.length && (runPlace(r) || {}).run !== run ? " hidden" : ""}>${role.get(k) || ""}${span(r)}${r.rank >= 0 ? "rank " + r.rank : "#" + k} · ${escapeHtml(r.path.split("/").pop())}${r.loaded === false ? " (not loaded)" : ""}</option>`).join("");
    rs.disabled = m.ranks.length < 2;
    rs.value = String(this.tabs ? this.tabs.rank : this.state.rank);   // the options were made again: keep the rank shown
  }

  deviceOptions() {
    const r = this.meta.ranks[this.state.rank], ds = document.getElementById("sel-dev");
    ds.innerHTML = deviceOrder(r.devices.map((d) => d.id)).map((k) => [r.devices[k], k]).map(([d, k]) => `<option value="${k}">${d.static ? `static graphs (${d.static.graphs.length})` : escapeHtml(d.id)}${d.static ? "" : d.peak && (d.peak.v > 0 || d.curves.length) ? " · peak " + fmtBytes(d.peak.v) : ""}</option>`).join("");
    ds.value = String(this.state.dev);
    document.getElementById("sel-rank").value = String(this.state.rank);
  }

  metaLine() {
    const r = this.meta.ranks[this.state.rank], d = this.dev(), clock = this.clock;
    const parts = [`format <b>${escapeHtml(r.format)}</b>`];
    if (r.world_size > 0) parts.push(`rank <b>${r.rank}</b> of ${r.world_size}`);
    if (r.host) parts.push(`host <b id="hdr-host">${escapeHtml(r.host)}</b>`);
    if (clock.mode === "abs") parts.push(`captured <b>${escapeHtml(clock.fmt(d.t0, 3, true))}</b> UTC, for ${escapeHtml(fmtDurShort(d.t1 - d.t0))}`);
    // what the input says of the device; "unknown" for what it does not say (Ascend text, snapshots)
    parts.push(`device <b>${escapeHtml(d.id)}</b> ${d.name ? escapeHtml(d.name) : '<span class="unknown">name unknown</span>'}, ` +
      (d.total > 0 ? "capacity " + fmtBytes(d.total) : '<span class="unknown">capacity unknown</span>'));
    parts.push(d.unmatched ? unmatchedCount(d.unmatched) : plural(d.allocs.total, "allocation"));
    document.getElementById("hdr-meta").innerHTML = parts.join(" · ");
    const notes = (r.notes || []).concat(this.meta.skipped || []);
    document.getElementById("notes").innerHTML = notesHtml(notes); // the important ones open
  }

  // Opens a device of a rank in the Memory view.  One that failed to open (a
  // damaged column) is opened again the next time the view is shown, not
  // drawn from what it had set before it failed.
  async openDevice(rank, dev) {
    try { await this.openDeviceNow(rank, dev); }
    catch (e) { this.memRank = -1; throw e; }
  }

  async openDeviceNow(rank, dev) {
    const st = this.state;
    if (this.source.ensureRank) await this.loadRank(rank);
    if (!this.meta.ranks[rank].devices.length) { this.deviceOptions(); return; }
    this.memRank = rank;
    st.rank = rank; st.dev = dev; st.selected = -1; st.hover = -1; st.hoverLane = -1; st.liveT = null; st.focus = null;
    const r = this.meta.ranks[rank], d = this.dev();
    this.clock = makeClock(BigInt(r.origin_ns || this.meta.origin_ns), r.time);
    st.t0 = d.t0; st.t1 = d.t1 > d.t0 ? d.t1 : d.t0 + 1;
    this.deviceOptions();
    this.metaLine();
    // Static graphs (Ascend static_op_mem): their own view, by node index.
    if (this.showStatic(d)) return;
    this.categoryOptions();
    this.groupOptions();
    this.stackBase = null;
    this.allocs = await this.source.getAllocs(rank, dev, st.t0, st.t1, this.timeline.W());
    this.timeline.setData(this.allocs);
    const pk = d.peak, lab = document.getElementById("peak-label");
    lab.innerHTML = pk
      ? `Peak <span class="v" id="peak-value">${fmtBytes(pk.v)}</span> <span class="muted">(<span id="peak-bytes">${groupDigits(pk.v)}</span> bytes)</span> at <b id="peak-time">${escapeHtml(this.clock.fmt(pk.t, 6, true))}</b>${this.clock.mode === "abs" ? " UTC" : ""} on ${escapeHtml(d.id)}`
      : "";
    this.drawPeak(document.getElementById("peak-summary"), document.getElementById("peak-list"), this, st.peakBy);
    this.drawDetail(document.getElementById("detail"), this, -1);
    this.drawLive(this);
    // CUDA allocator snapshots: the allocator's views (segments.js)
    (this.segments || (this.segments = new SegmentsView(this))).show(d);
    this.curve.key = "";
    await this.redraw(true);
  }

  // A static-graph export has no time axis: its own view replaces the memory grid.
  showStatic(d) {
    const grid = document.querySelector("main.grid");
    this.isStatic = !!d.static;
    if (!d.static) { if (this.staticView) this.staticView.hide(); grid.hidden = false; return false; }
    if (!this.staticView) this.staticView = new StaticView(this);
    grid.hidden = true;
    const n = d.static.graphs.length;
    document.getElementById("hdr-meta").innerHTML = `format <b>${escapeHtml(this.meta.ranks[this.state.rank].format)}</b> · static graph export: <b>${plural(n, "graph")}</b> of ${plural(new Set(d.static.graphs.map((g) => g.model)).size, "model")}, by node index (no times)`;
    this.staticView.show(d);
    return true;
  }

  // The group-by choices: those the device has curves for; what "op" groups
  // by (top-level operators, or user frames for inputs without operators).
  groupOptions() {
    const d = this.dev(), st = this.state, has = CurveView.groupsOf(d), sel = document.getElementById("sel-group");
    const byFrame = d.allocs.group_by === "frame", opName = byFrame ? "user frame" : "top-level op";
    for (const o of sel.options) {
      o.disabled = !has[o.value];
      o.title = o.disabled ? "this input has no such curves" : "";
      if (o.value === "op") o.textContent = opName;
    }
    if (!has[st.group]) { st.group = "overall"; sel.value = "overall"; }
    for (const id of ["sel-peak-by", "sel-live-by"]) {
      const o = document.querySelector(`#${id} option[value="${id === "sel-peak-by" ? "by_op" : "op"}"]`);
      if (o) o.textContent = opName;
    }
    document.querySelector('#seg-mode button[data-mode="lanes"]').textContent = "by " + (byFrame ? "user frame" : "operator");
    document.getElementById("f-text").placeholder = byFrame ? "filter by user frame" : "filter by operator name";
  }

  // The table's category filter: the categories this device has.
  categoryOptions() {
    const r = this.meta.ranks[this.state.rank], d = this.dev(), sel = document.getElementById("f-cat");
    const cats = r.categories || [], have = new Set((d.category_curves || []).map((c) => c.cat).filter((c) => c >= 0));
    const order = (r.category_order || cats.map((c, k) => k)).filter((c) => have.has(c) || !have.size);
    const cur = sel.value;
    sel.innerHTML = '<option value="">all categories</option>' + order.filter((c) => cats[c])
      .map((c) => `<option value="${c}">${escapeHtml(cats[c].name)}</option>`).join("");
    sel.value = [...sel.options].some((o) => o.value === cur) ? cur : "";
    sel.disabled = !cats.length;
  }

  // Stacked timeline: the instants and before-trace part of each column.
  async refreshStackBase() {
    const st = this.state, W = this.timeline.W();
    const key = [st.rank, st.dev, st.t0, st.t1, W].join("/");
    if (this.stackBase && this.stackBase.key === key) return;
    const data = await this.source.getStackBase(st.rank, st.dev, st.t0, st.t1, W);
    this.stackBase = { key, data };
  }

  // The id an allocation index stands for (windowed sources renumber per window).
  idOf(i) { return i < 0 || !this.allocs ? -1 : this.allocs.id ? this.allocs.id[i] : i; }

  // Windowed sources: the allocations of the window, keeping the selection.
  async refreshAllocs() {
    const st = this.state, sel = this.idOf(st.selected);
    const req = (this.allocsReq = (this.allocsReq || 0) + 1);
    const a = await this.source.getAllocs(st.rank, st.dev, st.t0, st.t1, this.timeline.W(), sel);
    if (req !== this.allocsReq) return; // a later window's answer won (fast zooming): never draw an older one
    this.allocs = a;
    this.timeline.setData(a);
    st.selected = sel >= 0 ? a.localOf(sel) : -1;
    st.hover = -1;
  }

  // A row of the allocations table: its index in this.allocs (fetching it if a
  // windowed source did not return it for this window).
  async rowToLocal(i, fetch) {
    const res = this.tables.last;
    if (!res || !res.ids) return i;
    const id = res.ids[i];
    let k = this.allocs.localOf(id);
    if (k < 0 && fetch) {
      const st = this.state;
      this.allocs = await this.source.getAllocs(st.rank, st.dev, st.t0, st.t1, this.timeline.W(), id);
      this.timeline.setData(this.allocs);
      k = this.allocs.localOf(id);
    }
    return k;
  }

  async setLiveT(t) {
    this.state.liveT = t;
    await this.drawLive(this);
    this.curve.u && this.curve.u.redraw(false);
  }

  // Everything that depends on the window.
  async redraw(fresh) {
    const t = performance.now();
    const st = this.state;
    document.getElementById("win-label").textContent = `${this.clock.fmt(st.t0, 3)} – ${this.clock.fmt(st.t1, 3)} (${fmtDurShort(st.t1 - st.t0)})`;
    const data = [];   // the timeline's, read while the charts draw: a failure is the timeline panel's
    if (this.source.windowed && !fresh) data.push(this.refreshAllocs());
    if (st.mode === "stacked") data.push(this.refreshStackBase());
    let [, , ok] = await Promise.all([this.curve.refresh(), this.cats.refresh(), this.timelineData(Promise.all(data))]);
    // the plot's width may have changed meanwhile (first build, a regroup, a resize): the
    // server chose the bars and counted the narrow ones for one width; draw with that width's
    if (ok && this.source.windowed && !allocsFit(this.allocs, st.t0, st.t1, this.timeline.W())) ok = await this.timelineData(this.refreshAllocs());
    if (ok) this.timeline.draw();
    this.perf.lastRedrawMs = performance.now() - t;
    this.perf.redraws++;
    // The table follows once the zoom settles (wheel zooming redraws often).
    clearTimeout(this.tableTimer);
    this.tableTimer = setTimeout(() => this.tables.render(), this.source.windowed ? 120 : 0);
  }

  // Waits for work, the data the timeline draws: true, or false when it failed
  // (said in the timeline's panel, drawfail.js).
  timelineData(work) { return drawOrSay(document.getElementById("p-timeline"), () => work.then(() => true)).then((ok) => !!ok); }

  // Shows [a, b), shifted (not cut) to stay inside the device's range: a pan at the edge keeps its span.
  setWindow(a, b) {
    const d = this.dev(), st = this.state;
    const w = clampWindow(a, b, d.t0, d.t1 > d.t0 ? d.t1 : d.t0 + 1);
    if (!w) return;
    [st.t0, st.t1] = w;
    this.tables.q.page = 0;
    clearTimeout(this.hashTimer); // the address follows once the zoom settles (a wheel zooms many times a second)
    this.hashTimer = setTimeout(() => this.tabs && this.tabs.current === "memory" && this.tabs.writeHash(), 200);
    return this.redraw();
  }

  resetWindow() { const d = this.dev(); return this.setWindow(d.t0, d.t1 > d.t0 ? d.t1 : d.t0 + 1); }

  zoomToPeak() {
    const d = this.dev(), pk = d.peak;
    if (!pk) return;
    const half = Math.max(500, (d.t1 - d.t0) * 0.02);
    return this.setWindow(pk.t - half, pk.t + half);
  }

  wheel(e, x0, W) {
    e.preventDefault();
    const st = this.state, span = st.t1 - st.t0;
    const frac = Math.min(1, Math.max(0, (e.offsetX - x0) / W));
    if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      const dx = (e.shiftKey ? e.deltaY : e.deltaX) / W * span;
      return this.setWindow(st.t0 + dx, st.t1 + dx);
    }
    const f = Math.exp(e.deltaY * 0.002), c = st.t0 + frac * span;
    return this.setWindow(c - (c - st.t0) * f, c + (st.t1 - c) * f);
  }

  setHover(i) {
    if (i === this.state.hover) return;
    this.state.hover = i;
    this.timeline.drawOver();
    this.curve.u && this.curve.u.redraw(false);
  }

  select(i, t) {
    this.state.selected = i;
    this.timeline.drawOver();
    this.curve.u && this.curve.u.redraw(false);
    document.querySelectorAll("#table tbody tr").forEach((tr) => tr.classList.toggle("sel", +tr.dataset.i === i));
    if (this.tabs) this.tabs.writeHash();
    return this.drawDetail(document.getElementById("detail"), this, i, t);
  }

  bind() {
    const $ = (id) => document.getElementById(id), st = this.state;
    $("sel-rank").addEventListener("change", (e) => this.switchRank(+e.target.value));
    $("sel-run").addEventListener("change", (e) => { // the run's first rank
      const k = this.meta.ranks.findIndex((r) => (runPlace(r) || {}).run === e.target.value);
      if (k >= 0) this.switchRank(k).then(() => this.header());
    });
    $("sel-dev").addEventListener("change", (e) => this.openDevice(st.rank, +e.target.value).then(() => this.tabs && this.tabs.writeHash()));
    $("sel-group").addEventListener("change", (e) => { st.group = e.target.value; this.redraw(); this.tabs.writeHash(); });
    $("sel-peak-by").addEventListener("change", (e) => { st.peakBy = e.target.value; this.drawPeak($("peak-summary"), $("peak-list"), this, st.peakBy); });
    if (!this.source.windowed) $("sel-live-by").querySelector('option[value="frame"]').remove(); // needs the server
    $("sel-live-by").addEventListener("change", (e) => { st.liveBy = e.target.value; this.drawLive(this); });
    // A click on the curve (not a drag) shows the live set at that time.
    let down = null;
    $("curve").addEventListener("mousedown", (e) => { down = [e.clientX, e.clientY]; });
    $("curve").addEventListener("click", (e) => {
      const u = this.curve.u;
      if (!u || !down || Math.abs(e.clientX - down[0]) > 3 || !e.target.classList.contains("u-over")) return;
      this.setLiveT(u.posToVal(e.offsetX, "x"));
    });
    $("btn-peak").addEventListener("click", () => this.zoomToPeak());
    $("btn-reset").addEventListener("click", () => this.resetWindow());
    $("seg-mode").addEventListener("click", (e) => {
      const m = e.target.dataset && e.target.dataset.mode;
      if (m) this.setMode(m);
    });
    $("seg-colour").addEventListener("click", (e) => {
      const c = e.target.dataset && e.target.dataset.colour;
      if (!c) return;
      e.preventDefault();
      this.setColour(c);
    });
    document.querySelectorAll(".tab").forEach((b) => b.addEventListener("click", () => { this.tables.tab = b.dataset.tab; this.tables.render(); }));
    let ft;
    const refilter = () => { clearTimeout(ft); ft = setTimeout(() => { this.tables.q.page = 0; this.tables.ops.page = 0; this.tables.render(); }, 120); };
    const refilterNow = () => { clearTimeout(ft); this.tables.q.page = 0; this.tables.render(); };
    $("f-cat").addEventListener("change", refilterNow);
    ["f-text", "f-min", "f-max"].forEach((id) => $(id).addEventListener("input", refilter));
    $("f-win").addEventListener("change", refilter);
    $("pg-prev").addEventListener("click", () => this.page(-1));
    $("pg-next").addEventListener("click", () => this.page(1));
    // Exports hold every row the filter keeps (not only the page shown).
    $("btn-tsv").addEventListener("click", async () => {
      try {
        const text = await this.tables.exportText("tsv");
        await navigator.clipboard.writeText(text);
        flash($("btn-tsv"), `Copied ${plural(text.split("\n").length - 2, "row")}`);
      } catch (e) { flash($("btn-tsv"), /clipboard|denied|allowed/i.test(String(e)) ? "Copy blocked" : "Copy failed"); console.warn(e); }
    });
    $("btn-csv").addEventListener("click", async () => {
      const name = `memlens-${this.tables.tab === "ops" ? "operators" : "allocations"}-${this.dev().id.replace(":", "")}.csv`;
      const a = document.createElement("a");
      let blob = null;
      if (this.tables.tab !== "ops" && this.source.exportUrl) a.href = this.source.exportUrl(this.tables.query(), "csv"); // streamed by the server
      else { blob = URL.createObjectURL(new Blob([await this.tables.exportText("csv")], { type: "text/csv" })); a.href = blob; }
      a.download = name;
      document.body.appendChild(a); a.click(); a.remove();
      if (blob) setTimeout(() => URL.revokeObjectURL(blob), 1000);
    });
    const thead = $("table").tHead;
    thead.addEventListener("click", (e) => {
      const k = e.target.dataset && e.target.dataset.k;
      if (k == null) return;
      if (e.target.dataset.unm && unmatchedSort(this.tables, +k)) { this.tables.render(); return; }
      const q = this.tables.tab === "ops" ? this.tables.ops : this.tables.q;
      const key = this.tables.tab === "ops" ? +k : k;
      // ascending / descending / none (tablectl.js)
      Object.assign(q, nextSort(q, key, (this.tables.tab === "ops" && key === 0) || key === "group" || key === "op" || key === "stream" || key === "ta" || key === "tr" ? 1 : -1));
      this.tables.render();
    });
    const tbody = $("table").tBodies[0];
    tbody.addEventListener("mouseover", (e) => {
      const tr = e.target.closest("tr");
      if (!tr) return;
      if (tr.dataset.i != null) this.rowToLocal(+tr.dataset.i, false).then((k) => this.setHover(k));
      else if (tr.dataset.op != null) {
        const L = this.timeline.layout;
        const g = this.allocs.groups.indexOf(tr.dataset.op);
        st.hoverLane = L && g >= 0 ? L.laneOfGroup[g] : -1;
        this.timeline.drawOver();
      }
    });
    tbody.addEventListener("mouseleave", () => { st.hoverLane = -1; this.setHover(-1); this.timeline.drawOver(); });
    tbody.addEventListener("click", (e) => {
      const tr = e.target.closest("tr");
      if (tr && tr.dataset.i != null) this.rowToLocal(+tr.dataset.i, true).then((k) => { if (k >= 0) this.select(k); });
    });
    bindKeys(this);
    mountPager(this);
    let rt;
    window.addEventListener("resize", () => { clearTimeout(rt); rt = setTimeout(() => { if (this.tabs && this.tabs.current !== "memory") return; if (this.isStatic) { this.staticView.resize(); return; } if (this.segments) this.segments.resize(); this.curve.resize(); this.cats.resize(); this.redraw(); }, 100); });
    // Light/dark switched while open: colours follow.
    if (typeof matchMedia === "function") matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => { this.curve.key = ""; this.redraw(); });
  }

  page(d) {
    const q = this.tables.tab === "ops" ? this.tables.ops : this.tables.q;
    q.page = Math.max(0, Math.min((this.tables.pages || 1) - 1, q.page + d));
    this.tables.render();
  }
}

// A rank's place in a TensorBoard logdir ({run, worker, span, spans}: the server's slot, or
// the report's rank), or null.
function runPlace(r) {
  const p = r.slot && r.slot.run ? r.slot : r;
  return p && p.run ? p : null;
}

function fmtDurShort(ns) {
  if (ns >= 60e9) return (ns / 60e9).toFixed(1) + " min";
  if (ns >= 1e9) return (ns / 1e9).toPrecision(3) + " s";
  if (ns >= 1e6) return (ns / 1e6).toPrecision(3) + " ms";
  if (ns >= 1e3) return (ns / 1e3).toPrecision(3) + " µs";
  return Math.round(ns) + " ns";
}

function flash(btn, text) {
  const old = btn.textContent;
  btn.textContent = text;
  setTimeout(() => { btn.textContent = old; }, 1200);
}

// Started only in a browser page that carries the data.
if (typeof document !== "undefined" && (document.getElementById("ml-meta") || document.getElementById("ml-server"))) {
  const app = new App(pageSource(document));
  window.__memlens = { app, ready: false };
  app.start().catch((e) => {
    const el = document.getElementById("loading");
    if (el) el.textContent = "memlens: cannot show this report: " + e.message;
    window.__memlens.error = String(e && e.stack || e);
    console.error(e);
  });
}
