// upload.js — adding runs to a served page (`memlens serve`, PUT /api/upload).
//
// A page served without input opens on a drop zone with a Browse button;
// otherwise the header gains "Add a run".  Files dropped anywhere on the page
// or chosen (several at once) are sent one after another with a progress bar
// each; the server streams each to disk and imports it (src/server/server.h):
// a file it cannot read shows the server's one-line error (the line
// `memlens summary FILE` prints) under its bar, and the others go on.  The
// last run uploaded opens, and the rank switcher lists every new one.
// app.js mounts it (mountUpload); the report file (no server) has none of it.

import { fmtBytes, escapeHtml } from "./format.js";

// The upload route for a file name (the server refuses names that are paths).
export function uploadUrl(base, name) { return base + "upload?name=" + encodeURIComponent(name); }

// "12.3 MiB of 40.0 MiB (31%)" while sending; "importing…" once all is sent.
export function progressText(loaded, total) {
  if (total > 0 && loaded >= total) return `${fmtBytes(total)} sent, importing…`;
  if (!(total > 0)) return `${fmtBytes(loaded)} sent`;
  return `${fmtBytes(loaded)} of ${fmtBytes(total)} (${Math.floor((100 * loaded) / total)}%)`;
}

// The answer of the server as an error line (its JSON "error", else the status).
export function errorOf(status, body) {
  if (body && body.error) return body.error;
  return status === 0 ? "the upload was cut off (is the server still running?)" : `the server answered ${status}`;
}

// Sends each file in turn with send(file, progress) -> {status, body}; hooks:
// start(file, k), progress(k, loaded, total), done(k, answer), failed(k, msg).
// Returns the answers of the files that were imported, in order.
export async function uploadAll(files, send, hooks = {}) {
  const added = [];
  for (let k = 0; k < files.length; k++) {
    const f = files[k];
    hooks.start && hooks.start(f, k);
    let res;
    try { res = await send(f, (loaded, total) => hooks.progress && hooks.progress(k, loaded, total)); }
    catch (e) { res = { status: 0, body: { error: String(e && e.message || e) } }; }
    if (res.status === 200 && res.body && res.body.index >= 0) {
      added.push(res.body);
      hooks.done && hooks.done(k, res.body);
    } else hooks.failed && hooks.failed(k, errorOf(res.status, res.body));
  }
  return added;
}

// One file by XHR (fetch has no upload progress); the browser streams it from disk.
function xhrSend(url) {
  return (file, progress) => new Promise((resolve) => {
    const x = new XMLHttpRequest();
    x.open("PUT", url(file.name));
    x.upload.onprogress = (e) => progress(e.loaded, e.lengthComputable ? e.total : file.size);
    x.upload.onload = () => progress(file.size, file.size);
    x.onload = () => {
      let body = null;
      try { body = JSON.parse(x.responseText); } catch { body = null; }
      resolve({ status: x.status, body });
    };
    x.onerror = () => resolve({ status: 0, body: null });
    x.send(file);
  });
}

const UPLOAD_ACCEPT = ".json,.gz,.pickle,.pkl,.csv,.db";
const UPLOAD_CSS = `
.up-drop { margin: 40px auto; max-width: 640px; padding: 36px 24px; text-align: center; border: 2px dashed var(--line);
  border-radius: 12px; background: var(--panel); color: var(--muted); }
.up-drop b { display: block; color: var(--fg); font-size: var(--fs-xl); margin-bottom: 8px; }
.up-drop .up-kinds { font-size: var(--fs-sm); margin: 6px 0 16px; }
.up-drop button { font-size: var(--fs-lg); padding: 6px 16px; }
body.up-dragging .up-drop, body.up-dragging #up-tray { border-color: var(--accent); }
body.up-dragging::after { content: "Drop to add the files as runs"; position: fixed; inset: 8px; display: flex;
  align-items: center; justify-content: center; font-size: var(--fs-xxl); color: var(--accent); border: 3px dashed var(--accent);
  border-radius: 14px; background: color-mix(in srgb, var(--bg) 80%, transparent); pointer-events: none; z-index: 10; }
#up-tray { margin: 6px 16px 0; display: flex; flex-direction: column; gap: 6px; }
#up-tray:empty { display: none; }
.up-item { display: grid; grid-template-columns: minmax(120px, 280px) minmax(120px, 1fr) auto auto; gap: 4px 12px; align-items: center;
  background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; }
.up-item .up-name { font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.up-item progress { width: 100%; height: 10px; accent-color: var(--accent); }
.up-item .up-state { color: var(--muted); font-size: var(--fs-sm); white-space: nowrap; }
.up-item .up-err { grid-column: 1 / -1; color: var(--peak); font-family: ui-monospace, monospace; font-size: var(--fs-sm); white-space: pre-wrap; }
.up-item.up-ok { opacity: .75; }
.up-close { border: 0; background: none; padding: 0 4px; color: var(--muted); }
`;

class Uploader {
  constructor(app) {
    this.app = app;
    this.busy = Promise.resolve();
    const $ = (id) => document.getElementById(id);
    const style = document.createElement("style");
    style.textContent = UPLOAD_CSS;
    document.head.appendChild(style);
    this.input = Object.assign(document.createElement("input"), { type: "file", multiple: true, accept: UPLOAD_ACCEPT, id: "up-input", hidden: true });
    this.input.addEventListener("change", () => { this.add([...this.input.files]); this.input.value = ""; });
    document.body.appendChild(this.input);
    // "Add a run", before the rank switcher
    this.button = Object.assign(document.createElement("button"), { id: "btn-add-run", textContent: "Add a run",
      title: "upload profiles (.json, .json.gz, .pt.trace.json, .pickle, memory timelines) as new runs; or drop them on the page" });
    this.button.addEventListener("click", () => this.input.click());
    const sel = $("sel-rank").closest("label");
    sel.parentNode.insertBefore(this.button, sel);
    this.tray = Object.assign(document.createElement("div"), { id: "up-tray" });
    this.tray.setAttribute("aria-live", "polite");
    $("notes").after(this.tray);
    // Files dropped anywhere on the page.
    let depth = 0;
    const hasFiles = (e) => e.dataTransfer && [...e.dataTransfer.types].includes("Files");
    document.addEventListener("dragenter", (e) => { if (hasFiles(e)) { depth++; document.body.classList.add("up-dragging"); } });
    document.addEventListener("dragleave", (e) => { if (hasFiles(e) && --depth <= 0) { depth = 0; document.body.classList.remove("up-dragging"); } });
    document.addEventListener("dragover", (e) => { if (hasFiles(e)) { e.preventDefault(); e.dataTransfer.dropEffect = "copy"; } });
    document.addEventListener("drop", (e) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth = 0;
      document.body.classList.remove("up-dragging");
      this.add([...e.dataTransfer.files]);
    });
  }

  // No run at all (served without input): the drop zone instead of the views.
  empty() {
    if (this.app.meta.ranks.length) return false;
    const $ = (id) => document.getElementById(id);
    const tabs = this.app.tabs;
    if (tabs) { this.shown = tabs.shown; tabs.setShown([]); } // no tab (nor its key) until a run is in
    $("vtabs").hidden = true;
    document.querySelectorAll("#app > .view").forEach((v) => { v.hidden = true; });
    $("sel-dev").disabled = true;
    $("hdr-title").textContent = "no run yet";
    $("hdr-meta").textContent = "";
    this.drop = Object.assign(document.createElement("div"), { className: "up-drop", id: "up-drop" });
    this.drop.innerHTML = `<b>Drop profiles here to open them</b>
      <div class="up-kinds">PyTorch / Kineto traces (.json, .json.gz, .pt.trace.json), CUDA allocator snapshots (.pickle),
      memory timelines — several at once; each becomes a run</div>
      <button id="btn-browse">Browse…</button>`;
    this.tray.after(this.drop);
    $("btn-browse").addEventListener("click", () => this.input.click());
    return true;
  }

  // Queues files (after any upload still running).
  add(files) {
    if (!files.length) return this.busy;
    this.busy = this.busy.then(() => this.run(files));
    return this.busy;
  }

  async run(files) {
    const items = files.map((f) => this.item(f));
    const base = this.app.source.base || "/api/";
    const added = await uploadAll(files, xhrSend((name) => uploadUrl(base, name)), {
      start: (f, k) => { items[k].state.textContent = "starting…"; },
      progress: (k, loaded, total) => { items[k].bar.max = total || 1; items[k].bar.value = loaded; items[k].state.textContent = progressText(loaded, total); },
      done: (k, a) => {
        items[k].el.classList.add("up-ok");
        items[k].bar.value = items[k].bar.max;
        items[k].state.textContent = a.added > 1 ? `added as ${a.added} runs` : "added";
        setTimeout(() => items[k].el.remove(), 6000);
      },
      failed: (k, msg) => {
        items[k].bar.style.visibility = "hidden";
        items[k].state.textContent = "not added";
        items[k].el.classList.add("up-failed");
        items[k].err.textContent = "memlens: " + msg;
        items[k].err.hidden = false;
      },
    });
    if (added.length) await this.openAdded(added);
  }

  // A row of the tray: name, bar, state, the error line if it fails.
  item(f) {
    const el = document.createElement("div");
    el.className = "up-item";
    el.innerHTML = `<span class="up-name" title="${escapeHtml(f.name)}">${escapeHtml(f.name)}</span><progress max="1" value="0"></progress>
      <span class="up-state">${fmtBytes(f.size)}, waiting</span><button class="up-close" title="dismiss">×</button><div class="up-err" hidden></div>`;
    el.querySelector(".up-close").addEventListener("click", () => el.remove());
    this.tray.appendChild(el);
    return { el, bar: el.querySelector("progress"), state: el.querySelector(".up-state"), err: el.querySelector(".up-err") };
  }

  // The new ranks into the page's list (as the server numbers them), then the
  // last file's first run opens in the view shown (the first run of an empty
  // page: Overview when it has a time side, else Memory, as at start).
  async openAdded(added) {
    const app = this.app, src = app.source, meta = app.meta, $ = (id) => document.getElementById(id);
    const m = await src.get("meta");
    for (let i = meta.ranks.length; i < m.ranks.length; i++) meta.ranks.push(src.slotRank(m.ranks[i]));
    meta.inputs = m.inputs;
    app.header();
    const tabs = app.tabs, k = added[added.length - 1].index;
    if (tabs) { tabs.setShown(app.shownViews()); this.shown = null; } // what the runs in can fill (a second rank: Distributed)
    if (!this.drop || !tabs) { await app.switchRank(k); return; }
    // the first run of an empty page
    this.drop.remove();
    this.drop = null;
    $("vtabs").hidden = false;
    await app.loadRank(k);
    tabs.rank = k;
    $("sel-rank").value = String(k);
    const perf = await app.perfOf(k), id = perf ? "overview" : "memory";
    tabs.panes[id].hidden = false; // shown before it draws: the charts take its width
    await tabs.go(id);
  }
}

// Served pages only (the source can upload): the drop zone and "Add a run".
export function mountUpload(app) {
  if (typeof document === "undefined" || !app.source.ensureRank || !app.source.slotRank) return null;
  return new Uploader(app);
}
