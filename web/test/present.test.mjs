// The memory views' presentation rules (present.js) and the fixes they carry:
// legend swatches, curve colours, byte ticks, plurals, served windows, notes.
import test from "node:test";
import assert from "node:assert/strict";
import { CURVE_COLOURS, TOTAL_COLOUR, markerDash, allocsFit, importantNote } from "../src/present.js";
import { byteAxis } from "../src/format.js";
import { CurveView } from "../src/views.js";

// CIE76 distance of two "#rrggbb" colours (sRGB, D65).
function lab(hex) {
  const c = [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16) / 255).map((v) => (v > 0.04045 ? ((v + 0.055) / 1.055) ** 2.4 : v / 12.92));
  const xyz = [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]].map((r) => r[0] * c[0] + r[1] * c[1] + r[2] * c[2]);
  const f = (t) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  const [x, y, z] = [xyz[0] / 0.9505, xyz[1], xyz[2] / 1.089].map(f);
  return [116 * y - 16, 500 * (x - y), 200 * (y - z)];
}
const dist = (a, b) => Math.hypot(...lab(a).map((v, k) => v - lab(b)[k]));

test("legend swatches: a dashed series gets a dashed swatch, a solid one a solid swatch", () => {
  assert.equal(markerDash(undefined), "solid");
  assert.equal(markerDash([6, 3]), "dashed");
  assert.equal(markerDash([2, 2]), "dotted");
  assert.notEqual(markerDash([6, 3]), markerDash(undefined));
});

test("component curves: no two of the first eight colours alike (no near-identical greens)", () => {
  const dev = { curves: ["PTA+GE", "PTA", "GE", "device total", "APP", "HCCL", "RUNTIME", "GE module"].flatMap((of) =>
    ["allocated", "reserved"].map((kind) => ({ group: "component", of, kind, label: of + " " + kind }))) };
  const st = CurveView.styles(CurveView.curvesFor(dev, "component"), "component");
  const colours = [...new Set(st.map((s) => s.colour))];
  assert.equal(colours.length, 8);
  for (let i = 0; i < colours.length; i++) for (let j = i + 1; j < colours.length; j++)
    assert.ok(dist(colours[i], colours[j]) > 25, `${colours[i]} and ${colours[j]} are too alike (${dist(colours[i], colours[j]).toFixed(1)})`);
  assert.deepEqual(colours, CURVE_COLOURS.slice(0, 8));
  // Ascend's "GE module" (component GE, kind reserved) is not drawn as "GE reserved"
  const mod = { curves: dev.curves.concat([{ group: "component", of: "GE", kind: "reserved", label: "GE module" }]) };
  const sm = CurveView.styles(CurveView.curvesFor(mod, "component"), "component");
  const ge = sm[5], gm = sm[sm.length - 1];
  assert.ok(ge.colour !== gm.colour || String(ge.dash) !== String(gm.dash), JSON.stringify([ge, gm]));
  // allocated solid, reserved dashed: their swatches differ
  assert.notEqual(markerDash(st[0].dash), markerDash(st[1].dash));
});

test("group by op: the total has its own colour, not the first operator's; no twin greens among operators", () => {
  const dev = { curves: [{ group: "overall", kind: "allocated", label: "allocated" }], op_curves: [{ label: "aten::mm" }, { label: "aten::add" }] };
  const st = CurveView.styles(CurveView.curvesFor(dev, "op"), "op");
  assert.equal(st[0].colour, TOTAL_COLOUR);
  assert.ok(st.slice(1).every((s) => s.colour !== st[0].colour));
  assert.notEqual(st[1].colour, st[2].colour);
  const many = { curves: dev.curves, op_curves: Array.from({ length: 8 }, (_, k) => ({ label: "op" + k })) };
  const cs = CurveView.styles(CurveView.curvesFor(many, "op"), "op").map((x) => x.colour);
  for (let i = 0; i < cs.length; i++) for (let j = i + 1; j < cs.length; j++)
    assert.ok(dist(cs[i], cs[j]) > 25, `${cs[i]} and ${cs[j]} are too alike (${dist(cs[i], cs[j]).toFixed(1)})`);
});

test("byte axes: whole-byte ticks on tiny devices (no 2.5 B, no 102.4 B)", () => {
  for (const max of [1, 1.1, 2.2, 3, 5.5, 7, 9.9, 12, 33, 999, 1000, 1023, 1500, 3000])
    for (const h of [40, 100, 280, 420]) {
      const a = byteAxis(max, h);
      for (const t of a.ticks) assert.ok(Number.isInteger(t), `max ${max} h ${h}: tick ${t}`);
      assert.ok(!a.ticks.map(a.label).some((l) => /\.\d+ B$/.test(l)), a.ticks.map(a.label).join());
    }
  const a = byteAxis(5.5, 160);
  assert.deepEqual(a.ticks.map(a.label), ["0", "2 B", "4 B"]);
});

test("served allocations fit the window and width drawn, or are fetched again", () => {
  assert.ok(allocsFit({}, 0, 10, 800)); // the embedded source: all of them
  const a = { fetched: { t0: 0, t1: 10, W: 800 } };
  assert.ok(allocsFit(a, 0, 10, 800));
  assert.ok(!allocsFit(a, 0, 10, 1030));
  assert.ok(!allocsFit(a, 0, 5, 800));
});

test("notes that change what the numbers mean are important", () => {
  assert.ok(importantNote("frees cannot be matched to allocations: the trace has no addresses"));
  assert.ok(importantNote("the trace was cut at 2 GiB"));
  assert.ok(importantNote("1,234 events skipped (malformed)"));
  assert.ok(!importantNote("device name unknown"));
});

test("notes: the important ones open, the minor ones folded, counted in words", async () => {
  const { notesHtml } = await import("../src/present.js");
  const h = notesHtml(["memory events carry no addresses: frees cannot be matched", "allocator settings: expandable_segments"]);
  assert.match(h, /notes-important[^]*frees cannot be matched/);
  assert.match(h, /<details><summary>1 other note about this input<\/summary><div>allocator settings/);
  assert.doesNotMatch(h, /<details>[^]*cannot be matched/);
  assert.equal(notesHtml(["a", "b"]).includes("2 notes about this input"), true);
});

test("tables: a filter that keeps nothing says so, across every column", async () => {
  const { noRowsHtml } = await import("../src/present.js");
  assert.match(noRowsHtml(7, "allocation", 184), /<tr class="no-rows"><td colspan="7">No allocations match the filters/);
  assert.match(noRowsHtml(6, "operator", 0), /No operators on this device/);
});

test("counts are pluralised everywhere: no number glued to a fixed plural ('1 allocations')", async () => {
  const fs = await import("node:fs");
  const dir = new URL("../src/", import.meta.url);
  const words = "allocations|events|frees|rows|bars|bands|lanes|notes|frames|segments|blocks|calls";
  const glued = new RegExp(`\\$\\{(?:groupDigits\\()?[\\w.]+(?:\\.length)?\\)?\\} (?:small )?(?:${words})\\b`);
  const bad = [];
  for (const f of fs.readdirSync(dir)) if (f.endsWith(".js"))
    fs.readFileSync(new URL(f, dir), "utf8").split("\n").forEach((l, k) => { if (glued.test(l)) bad.push(`${f}:${k + 1}: ${l.trim().slice(0, 100)}`); });
  assert.deepEqual(bad, []);
});

test("rows are packed from the window's bars only, as a served window holds them", async () => {
  const { packRows } = await import("../src/present.js");
  const { layoutLanes } = await import("../src/lanes.js");
  // three overlapping allocations of one group; the middle one is not a bar in this window
  const all = { n: 3, ta: Float64Array.from([0, 1, 2]), tf: Float64Array.from([10, 1.001, 10]), size: Float64Array.from([8, 8, 8]), group: Uint32Array.from([0, 0, 0]) };
  const served = { n: 2, ta: Float64Array.from([0, 2]), tf: Float64Array.from([10, 10]), size: Float64Array.from([8, 8]), group: Uint32Array.from([0, 0]) };
  const L = layoutLanes(all, ["op"], { maxLanes: Infinity, maxRows: 6 });
  const S = layoutLanes(served, ["op"], { maxLanes: Infinity, maxRows: 6 });
  packRows(all, L, [0, 2], 6);
  assert.equal(L.lanes[0].rows, S.lanes[0].rows);
  assert.deepEqual([L.row[0], L.row[2]], [S.row[0], S.row[1]]);
});
