// upload.mjs — uploads in a `memlens serve` page started without input, in
// headless Chromium.
//
//   node web/test-browser/upload.mjs URL GOOD_FILE BAD_FILE "BAD_ERROR_LINE" SMALL_JSON SHOT_DIR
//
// The empty page shows the drop zone; GOOD_FILE and BAD_FILE chosen together
// (Browse, setInputFiles): the good one opens as a run, the bad one shows the
// CLI's error line in the page; then "Add a run" with GOOD_FILE again, and a
// drop of SMALL_JSON's text as a file: each becomes a run in the switcher and
// opens.  Prints "ok NAME" or "FAIL NAME: why" (tests/cli_serve_upload_browser.sh
// counts them); screenshots into SHOT_DIR.
import { checks, launch, ok } from "./lib.mjs";
import path from "node:path";
import fs from "node:fs";

const [url, good, bad, badLine, small, shots = "build/screenshots/upload"] = process.argv.slice(2);
if (process.env.UPLOAD_DEBUG) console.log(JSON.stringify(process.argv.slice(2)));
fs.mkdirSync(shots, { recursive: true });

const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const failedResp = [];
  page.on("response", (r) => { if (r.status() >= 400) failedResp.push(r.status() + " " + r.url()); });
  // expected failures: the bad upload (422), and /api/perf of a run without a time side (404: none, by design)
  page.on("console", (m) => { if (m.type() === "error" && !/status of (422|404)/.test(m.text())) errors.push(m.text()); });
  await page.goto(url);
  await page.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 30000 });
  const err = await page.evaluate(() => window.__memlens.error || "");
  ok("empty page starts without errors", !err && errors.length === 0, err || errors.join("; "));
  ok("empty page: the drop zone with a Browse button", await page.isVisible("#up-drop") && await page.isVisible("#btn-browse"));
  ok("empty page: the views and their tabs are hidden", await page.evaluate(() =>
    [...document.querySelectorAll("#app > .view")].every((v) => v.hidden) && document.getElementById("vtabs").hidden));
  await page.screenshot({ path: path.join(shots, "upload-empty.png") });
  await page.keyboard.press("5"); // a view's key does nothing while there is no run
  ok("empty page: tab keys do nothing", await page.isVisible("#up-drop") && await page.evaluate(() =>
    [...document.querySelectorAll("#app > .view")].every((v) => v.hidden)));

  // Browse: two files at once, a good one and a bad one.
  const chooser = page.waitForEvent("filechooser");
  await page.click("#btn-browse");
  await (await chooser).setFiles([good, bad]);
  await page.waitForFunction(() => document.querySelector(".up-item .up-err:not([hidden])") && !document.getElementById("up-drop")
    && window.__memlens.app.tabs.current && !document.getElementById("v-" + window.__memlens.app.tabs.current).hidden, null, { timeout: 60000 });
  const first = await page.evaluate(() => window.__memlens.app.tabs.current);
  await page.screenshot({ path: path.join(shots, "upload-added-" + first + ".png") });
  await page.click("#tab-memory");
  await page.waitForFunction(() => document.getElementById("peak-value"), null, { timeout: 30000 });
  const shown = await page.textContent(".up-item .up-err:not([hidden])");
  ok("the bad file's error is the CLI's line", shown === badLine, JSON.stringify(shown) + " vs " + JSON.stringify(badLine));
  ok("the good file opened: tabs and the memory view shown", await page.evaluate(() =>
    !document.getElementById("vtabs").hidden && !document.querySelector("#v-memory main.grid").hidden));
  const opts = () => page.$$eval("#sel-rank option", (os) => os.map((o) => o.textContent));
  let o = await opts();
  ok("the switcher lists the good run only", o.length === 1 && o[0].includes(path.basename(good)), JSON.stringify(o));
  ok("the page's title names it", (await page.title()).includes(path.basename(good)), await page.title());
  await page.screenshot({ path: path.join(shots, "upload-added.png") });

  // "Add a run" in the header, once a run is open.
  ok("an 'Add a run' button in the header", await page.isVisible("header #btn-add-run"));
  const chooser2 = page.waitForEvent("filechooser");
  await page.click("#btn-add-run");
  await (await chooser2).setFiles([good]);
  await page.waitForFunction(() => document.querySelectorAll("#sel-rank option").length === 2 && document.getElementById("sel-rank").value === "1"
    && window.__memlens.app.tabs.rank === 1 && window.__memlens.app.state.rank === 1, null, { timeout: 60000 });
  ok("a second run joins the switcher and opens", true);

  // Dropped on the page.
  const text = fs.readFileSync(small, "utf8");
  // (the view sets state.rank before it awaits the run's allocations, and writes the peak
  // after: the peak shown until then is the run before's, so wait for a new one)
  await page.evaluate(() => { document.getElementById("peak-bytes").dataset.before = "1"; });
  await page.evaluate((t) => {
    const dt = new DataTransfer();
    dt.items.add(new File([t], "dropped.json", { type: "application/json" }));
    for (const type of ["dragenter", "dragover", "drop"]) document.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, text);
  await page.waitForFunction(() => window.__memlens.app.state.rank === 2 && document.getElementById("peak-bytes")
    && !document.getElementById("peak-bytes").dataset.before, null, { timeout: 60000 });
  o = await opts();
  ok("a dropped file becomes run 3 and opens", o.length === 3 && o[2].includes("dropped.json") && await page.isVisible("#peak-value"), JSON.stringify(o));
  const peak = await page.textContent("#peak-bytes");
  ok("the dropped run's peak", peak === "3,145,728", peak);
  // The progress bar, on a throttled link: a 2 MiB file at 512 KiB/s (a bad one: refused at its end).
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 512 * 1024 });
  const slow = path.join(path.dirname(bad), "slow.json");
  fs.writeFileSync(slow, Buffer.concat([Buffer.from("hello"), Buffer.alloc(2 << 20)]));
  await page.setInputFiles("#up-input", [slow]);
  await page.waitForFunction(() => [...document.querySelectorAll(".up-item")].some((el) => el.querySelector(".up-name").textContent === "slow.json"
    && el.querySelector("progress").value > 0 && el.querySelector("progress").value < el.querySelector("progress").max), null, { timeout: 20000 });
  const mid = await page.evaluate(() => [...document.querySelectorAll(".up-item")].find((el) => el.querySelector(".up-name").textContent === "slow.json").querySelector(".up-state").textContent);
  ok("a progress bar while a file goes up", /of 2\.00 MiB \(\d+%\)$/.test(mid), mid);
  await page.screenshot({ path: path.join(shots, "upload-progress.png") });
  await page.waitForFunction(() => [...document.querySelectorAll(".up-item.up-failed .up-err")].some((e) => /slow\.json: byte 0/.test(e.textContent)), null, { timeout: 30000 });
  ok("then the server's verdict", true);
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });

  // switching back to the first run works as for any rank
  await page.selectOption("#sel-rank", "0");
  await page.waitForFunction(() => window.__memlens.app.state.rank === 0 && window.__memlens.app.tabs.rank === 0, null, { timeout: 30000 });
  ok("switching back to run 1", true);
  await page.screenshot({ path: path.join(shots, "upload-three.png") });
  ok("no errors while uploading", errors.length === 0, errors.join("; "));
  const unexpected = failedResp.filter((x) => !/^422 .*\/api\/upload\?name=(notes|slow)\.json$/.test(x) && !/^404 .*\/api\/perf\?rank=\d+$/.test(x));
  ok("no request failed but the bad upload", unexpected.length === 0 && failedResp.some((x) => x.startsWith("422")), failedResp.join(", "));
} catch (e) {
  checks.failed++;
  console.log("FAIL " + String(e).split("\n")[0]);
} finally {
  await browser.close();
}
process.exit(checks.failed ? 1 : 0);
