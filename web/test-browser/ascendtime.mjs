// ascendtime.mjs — the report of an Ascend run's time side in headless
// Chromium (tests/cli_ascend_browser.sh): Overview, Operators and Kernels in
// NPU words (NPU utilization and idle, "NPU time share", no Tensor Cores
// column), the Kernels view grouped by Accelerator Core (AI_CORE /
// AI_VECTOR_CORE / HCCL rows, as MindStudio Insight's operator view), the
// Trace view's NPU streams.  Prints "ok NAME" / "FAIL NAME: why"; one
// screenshot per view in SHOTS.
import { eachPage, ok, settle, track } from "./lib.mjs";
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";

await eachPage(async (browser, [file, shots = "build/screenshots/ascend-time", cores = "HCCL,AI_CORE", launches = ""]) => {
  fs.mkdirSync(shots, { recursive: true });
  const errors = [];
  const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  await track(page.context()); // settle(page): done when its fetches, short timers and frames are
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await page.goto(pathToFileURL(path.resolve(file)).href, { timeout: 90000 });
  await page.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 30000 });
  const err = await page.evaluate(() => window.__memlens.error || "");
  ok("page starts without errors", !err && errors.length === 0, err || errors.join("; "));
  if (err) throw new Error(err);
  const shot = (name) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: false });
  const open = async (key, id) => {
    await page.keyboard.press(key);
    await page.waitForFunction((v) => window.__memlens.app.tabs.current === v, id, { timeout: 5000 }).catch(() => {});
    await settle(page);
    return page.textContent("#v-" + id);
  };
  const ov = await open("1", "overview");
  ok("Overview: NPU words", /NPU utilization/.test(ov) && /NPU time/.test(ov) && /first NPU event/.test(ov) && !/Tensor Cores|SM efficiency|GPU/.test(ov), ov.slice(0, 300));
  await shot("overview");
  const ops = await open("2", "operators");
  ok("Operators: NPU time share, no Tensor Core columns", /NPU time share/.test(ops) && !/CUDA time share/.test(ops) && !/TC eligible/.test(ops), ops.slice(0, 300));
  await shot("operators");
  const kn = await open("3", "kernels");
  ok("Kernels: NPU idle by cause, no Tensor Cores column", /NPU idle by cause/.test(kn) && !/GPU idle/.test(kn) && !/Tensor Cores/.test(kn), kn.slice(0, 300));
  ok("Kernels: COMMUNICATION among the kernel types", /COMMUNICATION/.test(kn), kn.slice(0, 300));
  const hasCore = await page.evaluate(() => { const o = document.querySelector('#v-kernels .pv-group option[value="core"]'); return !!o && !o.hidden; });
  ok("Kernels: group by Accelerator Core is offered", hasCore);
  // NPU launches: the CANN calls linked to tasks (cli_ascend_time.sh has the figures); none without a trace_view
  const kl = await page.textContent("#kn-launches").catch(() => "");
  if (launches) ok(`Kernels: ${launches} NPU launches`, new RegExp(`Launches\\s*${launches.replace(",", ",?")}`).test(kl), kl.slice(0, 300));
  else ok("Kernels: no launches to pair, in CANN's words", /no CANN call linked to a task/.test(kl) || !kl, kl.slice(0, 300));
  await shot("kernels");
  await page.selectOption("#v-kernels .pv-group", "core");
  await settle(page);
  const rows = await page.$$eval("#v-kernels table tbody tr", (trs) => trs.map((t) => t.textContent));
  for (const c of cores.split(",")) ok(`Kernels by Accelerator Core: a ${c} row`, rows.some((r) => r.includes(c)), rows.slice(0, 8).join(" | "));
  await shot("kernels-by-core");
  const tr = await open("4", "trace");
  ok("Trace: the NPU's streams", /Stream|stream/.test(tr) || (await page.$$("#v-trace canvas")).length > 0, tr.slice(0, 200));
  await shot("trace");
  ok("no errors while using the page", errors.length === 0, errors.join("; "));
});
