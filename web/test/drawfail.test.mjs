// drawfail.js and the router (tabs.js) that draws every tab through it: a
// view that throws says why in its pane, the switch completes, another tab
// still draws, and a second draw of the view takes the line away; and
// HttpSource's failed requests (source.js), each an error naming its request.
import test from "node:test";
import assert from "node:assert/strict";
import { drawOrSay, drawFailText, sayDrawFailed, drawsInto } from "../src/drawfail.js";
import { TabRouter } from "../src/tabs.js";
import { HttpSource } from "../src/source.js";

// The few DOM calls drawfail.js makes, on plain objects.
class FakeEl {
  constructor(cls = "") {
    this.children = [];
    this.parent = null;
    this.textContent = "";
    this.attrs = {};
    const set = new Set(cls.split(" ").filter(Boolean));
    this.classList = { contains: (c) => set.has(c), add: (c) => set.add(c), remove: (c) => set.delete(c), toggle: (c, on) => (on ? set.add(c) : set.delete(c)), has: set };
    this.ownerDocument = { createElement: () => new FakeEl() };
  }
  set className(v) { for (const c of v.split(" ")) this.classList.add(c); }
  get firstElementChild() { return this.children[0] || null; }
  setAttribute(k, v) { this.attrs[k] = v; }
  append(c) { c.parent = this; this.children.push(c); }
  prepend(c) { c.parent = this; this.children.unshift(c); }
  after(c) { const p = this.parent; c.parent = p; p.children.splice(p.children.indexOf(this) + 1, 0, c); }
  remove() { const p = this.parent; p.children.splice(p.children.indexOf(this), 1); this.parent = null; }
  lines() { return this.children.filter((c) => c.classList.contains("view-error")).map((c) => c.textContent); }
}

const decodeError = () => new Error("memlens: blob 97: 8 bytes where its descriptor says 16");

test("drawFailText: the error's message after the line's words", () => {
  assert.equal(drawFailText(decodeError()), "This view could not be drawn: memlens: blob 97: 8 bytes where its descriptor says 16");
  assert.equal(drawFailText("a string thrown"), "This view could not be drawn: a string thrown");
  assert.equal(drawFailText(new Error("")), "This view could not be drawn: an error without a message");
});

test("drawOrSay: a draw that throws (sync or async) says it in its element, logs it once, never rejects", async (t) => {
  const logged = [];
  t.mock.method(console, "error", (e) => logged.push(e.message));
  const pane = new FakeEl("view");
  assert.equal(await drawOrSay(pane, async () => { throw decodeError(); }), undefined);
  assert.deepEqual(pane.lines(), ["This view could not be drawn: memlens: blob 97: 8 bytes where its descriptor says 16"]);
  assert.ok(pane.classList.contains("draw-failed"));
  assert.equal(pane.children[0].attrs.role, "alert");
  // the same failure again (a zoom): one line, not logged again
  await drawOrSay(pane, () => { throw decodeError(); });
  assert.deepEqual(pane.lines(), ["This view could not be drawn: memlens: blob 97: 8 bytes where its descriptor says 16"]);
  assert.deepEqual(logged, ["memlens: blob 97: 8 bytes where its descriptor says 16"]);
  // a draw that works takes the line away and gives its value
  assert.equal(await drawOrSay(pane, () => 42), 42);
  assert.deepEqual(pane.lines(), []);
  assert.ok(!pane.classList.contains("draw-failed"));
});

test("a panel's line goes under its title bar; drawsInto wraps a draw function", async (t) => {
  t.mock.method(console, "error", () => {});
  const panel = new FakeEl("panel"), bar = new FakeEl("bar"), chart = new FakeEl();
  panel.append(bar); panel.append(chart);
  const draw = drawsInto(panel, (a, b) => { if (a > b) throw new Error(`memlens: ${a} > ${b}`); return a + b; });
  assert.equal(await draw(1, 2), 3);
  assert.equal(await draw(3, 2), undefined);
  assert.deepEqual(panel.children.map((c) => (c === bar ? "bar" : c === chart ? "chart" : c.textContent)),
    ["bar", "This view could not be drawn: memlens: 3 > 2", "chart"]);
  // keep (the page's net for errors no drawing awaited): the content stays, the line says "part of"
  const pane = new FakeEl("view");
  sayDrawFailed(pane, new TypeError("x is undefined"), true);
  assert.deepEqual(pane.lines(), ["Part of this view could not be drawn: x is undefined"]);
  assert.ok(!pane.classList.contains("draw-failed"));
});

test("the router: a tab whose view throws says so in its pane; switching on works, and back draws it again", async (t) => {
  const logged = [];
  t.mock.method(console, "error", (e) => logged.push(e.message));
  const panes = { overview: new FakeEl("view"), memory: new FakeEl("view") };
  let broken = true, overviewShown = 0;
  const views = {
    overview: { show: async () => { overviewShown++; } },
    memory: { show: async (rank) => { if (broken) throw new Error(`memlens: blob 97: 8 bytes where its descriptor says 16 (rank ${rank})`); } },
  };
  const nav = { innerHTML: "", querySelectorAll: () => [] };
  const changes = [];
  const tabs = new TabRouter(nav, panes, views, { onChange: (id) => changes.push(id) });
  tabs.setShown(["overview", "memory"]);
  await tabs.go("memory");
  assert.equal(tabs.current, "memory");
  assert.deepEqual(panes.memory.lines(), ["This view could not be drawn: memlens: blob 97: 8 bytes where its descriptor says 16 (rank 0)"]);
  assert.deepEqual(changes, ["memory"], "the switch completed");
  await tabs.go("overview");
  assert.equal(overviewShown, 1);
  assert.equal(panes.overview.lines().length, 0);
  assert.equal(panes.memory.hidden, true);
  // the rank changes while the broken view is shown: its line names the rank now
  await tabs.go("memory");
  await tabs.setRank(1);
  assert.deepEqual(panes.memory.lines(), ["This view could not be drawn: memlens: blob 97: 8 bytes where its descriptor says 16 (rank 1)"]);
  broken = false;
  await tabs.go("overview");
  await tabs.go("memory");
  assert.deepEqual(panes.memory.lines(), [], "drawn again: the line is gone");
  // logged: rank 0's failure once (shown again on the way back, still on screen), then rank 1's
  assert.deepEqual(logged.map((m) => m.slice(-8)), ["(rank 0)", "(rank 1)"]);
});

// A server whose routes answer [status, body] (body: an object, or text that is not JSON).
function server(routes) {
  return async (url) => {
    const route = new URL(url, "http://127.0.0.1/").pathname.replace("/api/", "");
    if (!routes[route]) throw new TypeError("Failed to fetch");
    const [status, body] = routes[route];
    return { status, json: async () => (typeof body === "string" ? JSON.parse(body) : body), arrayBuffer: async () => new ArrayBuffer(4), text: async () => String(body) };
  };
}

test("HttpSource: a failed request is an error that names it", async () => {
  const s = new HttpSource("/api/", server({
    meta: [500, { error: "cannot read t.json" }],
    ops: [200, "<html>proxy error</html>"],
    rank: [202, "not json"],
    curve: [200, "binary"],
    catcurve: [404, "Not Found"],
    export: [400, { error: "bad sort key" }],
  }));
  const failed = async (p) => { try { await p; } catch (e) { return e.message; } return "no error"; };
  assert.equal(await failed(s.getMeta()), "memlens serve: /api/meta: HTTP 500 (cannot read t.json)");
  assert.equal(await failed(s.get("ops", { rank: 0 })), "memlens serve: /api/ops: HTTP 200, but not JSON");
  assert.equal(await failed(s.get("rank", { rank: 0 }, [200, 202])), "memlens serve: /api/rank: HTTP 202, but not JSON");
  assert.equal(await failed(s.getBin("curve", { rank: 0 })), "memlens serve: /api/curve: HTTP 200, but not a binary answer");
  assert.equal(await failed(s.getBin("catcurve", { rank: 0 })), "memlens serve: /api/catcurve: HTTP 404");
  assert.equal(await failed(s.getExport({ rank: 0, dev: 0 }, "csv")), "memlens serve: /api/export: HTTP 400 (bad sort key)");
  assert.equal(await failed(s.get("live", { rank: 0 })), "memlens serve: /api/live: no answer from the server (Failed to fetch)");
  assert.equal(await failed(s.getTraceJson(0)), "memlens serve: /api/trace.json: no answer from the server (Failed to fetch)");
});
