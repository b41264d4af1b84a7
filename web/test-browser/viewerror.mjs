// viewerror.mjs — a view that cannot be drawn says why where it would be
// (web/src/drawfail.js; tests/cli_viewerror_browser.sh):
//
//   node web/test-browser/viewerror.mjs --pages LIST
//
// each line of LIST: NAME KIND PAGE SHOT_DIR, KIND one of
//   catblob    PAGE a report; one column of the category chart of the device
//              the Memory view opens is cut short in a copy of it (its blob
//              4 bytes short, deflated again when it was): the chart's panel
//              says decode.js's error, the curves, the timeline and the table
//              still draw, and the Operators tab too
//   allocblob  the same with the device's allocation sizes, which the whole
//              Memory view reads when it opens: the tab says it in its pane
//              (the page opens there and still starts), the Overview draws
//   served     PAGE the URL of `memlens serve`; its /api/catcurve answers 500
//              and /api/table a 200 that is not JSON (the page's requests are
//              answered by the test): the panels name the request
//
// Prints "ok NAME: CHECK" / "FAIL NAME: CHECK: why" (tests/lib.sh t_browse).
import { eachPage, ok, settle, track } from "./lib.mjs";
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";
import zlib from "node:zlib";

const LINE = "This view could not be drawn: ";

// A copy of the report at file with the column desc (of meta) 4 bytes short:
// returns [the copy's path, decode.js's error for it].
function cutColumn(file, html, desc, out) {
  const open = `<script type="application/x-memlens" id="ml-b${desc.b}">`;
  const at = html.indexOf(open), end = html.indexOf("</script>", at);
  if (at < 0 || end < 0) throw new Error("no blob " + desc.b + " in " + file);
  let bytes = Buffer.from(html.slice(at + open.length, end).trim(), "base64");
  if (desc.z) bytes = zlib.inflateSync(bytes);
  const said = bytes.length; // the page as written: the bytes its descriptor says
  let cut = bytes.subarray(0, said - 4);
  if (desc.z) cut = zlib.deflateSync(cut);
  fs.writeFileSync(out, html.slice(0, at + open.length) + cut.toString("base64") + html.slice(end));
  return `memlens: blob ${desc.b}: ${said - 4} bytes where its descriptor says ${said}`;
}

// The device the Memory view opens: the one with the highest peak (devorder.js).
function shownDevice(meta) {
  const r = meta.ranks[0];
  return r.devices.reduce((a, d) => (d.peak && (!a.peak || d.peak.v > a.peak.v) ? d : a), r.devices[0]);
}

// What the page shows: each view-error line (where it is), and what the other views drew.
const look = (page) => page.evaluate(() => {
  const where = (e) => e.closest(".panel") ? e.closest(".panel").id : e.closest(".view").id;
  return {
    lines: [...document.querySelectorAll(".view-error")].map((e) => `${where(e)}: ${e.textContent}`),
    peak: (document.getElementById("peak-value") || {}).textContent || "",
    curve: !!document.querySelector("#curve canvas") && !document.getElementById("p-curves").classList.contains("draw-failed"),
    timeline: document.getElementById("tl-note").textContent,
    rows: document.querySelectorAll("#table tbody tr").length,
    count: document.getElementById("t-count").textContent,
    grid: getComputedStyle(document.querySelector("#v-memory main.grid")).display,
    shown: [...document.querySelectorAll(".view")].filter((v) => !v.hidden).map((v) => v.id),
  };
});

await eachPage(async (browser, [kind, file, shots]) => {
  fs.mkdirSync(shots, { recursive: true });
  const errors = [], logged = [];
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  await track(page.context());
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") logged.push(m.text()); });
  let url = file, want = {};
  if (kind === "served") {
    // the server's answers, failed by the test where the page asks for them
    await page.route(/\/api\/catcurve\?/, (r) => r.fulfill({ status: 500, contentType: "application/json", body: '{"error":"planted by the test"}' }));
    await page.route(/\/api\/table\?/, (r) => r.fulfill({ status: 200, contentType: "application/json", body: "<html>a proxy's page</html>" }));
    want = { "p-categories": "memlens serve: /api/catcurve: HTTP 500 (planted by the test)", "p-tables": "memlens serve: /api/table: HTTP 200, but not JSON" };
  } else {
    const html = fs.readFileSync(file, "utf8");
    const meta = JSON.parse(html.match(/<script[^>]*id="ml-meta"[^>]*>([\s\S]*?)<\/script>/)[1]);
    const d = shownDevice(meta);
    const desc = kind === "catblob" ? d.category_curves.map((c) => c.curve.v).find((c) => c) : d.allocs.size;
    url = path.join(shots, "tampered.html");
    want = { [kind === "catblob" ? "p-categories" : "v-memory"]: cutColumn(file, html, desc, url) };
    url = pathToFileURL(path.resolve(url)).href;
  }
  const wantLines = Object.entries(want).map(([k, m]) => `${k}: ${LINE}${m}`);
  await page.goto(url + "#view=memory", { timeout: 90000 });
  await page.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 60000 });
  ok("page starts", !(await page.evaluate(() => window.__memlens.error || "")), await page.evaluate(() => window.__memlens.error || ""));
  await settle(page);
  let s = await look(page);
  await page.screenshot({ path: path.join(shots, "memory.png"), fullPage: true });
  ok("the Memory view says what went wrong, where it would be", JSON.stringify(s.lines) === JSON.stringify(wantLines), JSON.stringify(s.lines));
  ok("the error is caught, not a page error", errors.length === 0, errors.join("; "));
  ok("and in the console", Object.values(want).every((m) => logged.some((l) => l.includes(m))), logged.join(" | ").slice(0, 400));
  if (kind === "allocblob") {
    ok("the Memory view's stale or half-drawn panels are hidden", s.grid === "none", s.grid);
  } else {
    ok("the curves still draw", s.curve && /\d/.test(s.peak), JSON.stringify(s));
    ok("the timeline still draws", /\d+ bars?\b/.test(s.timeline), s.timeline);
    if (kind === "served") ok("the table's panel shows its line, not an empty table", !(await page.isVisible("#table")) && s.rows === 0, JSON.stringify(s));
    else ok("the table still draws", s.rows > 0 && /\d+ of \d+ allocations/.test(s.count), JSON.stringify(s));
  }
  // another tab draws; back on Memory, the same one line
  const other = kind === "allocblob" ? "1" : "2", otherView = kind === "allocblob" ? "v-overview" : "v-operators";
  await page.keyboard.press(other);
  await settle(page);
  const drawn = await page.evaluate((id) => { const v = document.getElementById(id); return { shown: !v.hidden, err: !!v.querySelector(".view-error"), steps: v.textContent.includes("Step time breakdown"), text: v.textContent.replace(/\s+/g, " ").slice(0, 200), rows: v.querySelectorAll("tbody tr").length }; }, otherView);
  await page.screenshot({ path: path.join(shots, "other-tab.png") });
  ok("switching tabs still works: another view draws", drawn.shown && !drawn.err && (kind === "allocblob" ? drawn.steps : drawn.rows > 0), JSON.stringify(drawn));
  await page.keyboard.press("5");
  await settle(page);
  s = await look(page);
  ok("back on Memory: the same line, once", JSON.stringify(s.lines) === JSON.stringify(wantLines) && s.shown.join() === "v-memory", JSON.stringify(s.lines) + " " + s.shown);
  ok("no page error while using the page", errors.length === 0, errors.join("; "));
});
