// lib.mjs — what the page checks share: the "ok NAME" / "FAIL NAME: why"
// lines they print (the tests/cli_*_browser.sh scripts count them) and the
// headless Chromium they drive ($CHROMIUM, else /usr/bin/chromium).
import { chromium } from "playwright-core";
import fs from "node:fs";

// checks.failed: how many checks failed so far (each script is its own
// process); checks.prefix: "PAGE: " while eachPage runs a page's checks.
export const checks = { failed: 0, prefix: "" };

export function ok(name, cond, why = "") {
  if (cond) console.log("ok " + checks.prefix + name);
  else { checks.failed++; console.log("FAIL " + checks.prefix + name + (why ? ": " + why : "")); }
}

export async function launch() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
  if (process.env.BROWSER_PROFILE) profileBrowser(browser, process.env.BROWSER_PROFILE);
  return browser;
}

// BROWSER_PROFILE=FILE (a developer's tool, not the tests'): where a script's
// time goes.  Every call of the page methods below is timed; at exit one line
// per method, "SCRIPT METHOD: S s in N calls", is appended to FILE.
const PROFILED = ["goto", "waitForTimeout", "waitForFunction", "waitForSelector", "screenshot", "evaluate", "$eval", "$$eval",
  "click", "selectOption", "setViewportSize", "fill", "press", "hover", "reload", "setInputFiles", "check"];
const spent = new Map();
function spend(label, ms) { const s = spent.get(label) || [0, 0]; s[0] += ms; s[1]++; spent.set(label, s); }
function profileBrowser(browser, file) {
  const timed = (obj, m, label = m) => {
    const f = obj[m];
    if (typeof f !== "function") return;
    obj[m] = async function (...a) {
      const t0 = Date.now();
      let threw = true; // a wait that ran out its timeout (and was caught) is time spent for nothing
      try { const r = await f.apply(this, a); threw = false; return r; } finally { spend(threw ? label + ", threw" : label, Date.now() - t0); }
    };
  };
  const wrapPage = (page) => { // once (browser.newPage makes its page through a context's newPage)
    if (page.__profiled) return page;
    page.__profiled = true;
    for (const m of PROFILED) timed(page, m);
    timed(page.keyboard, "press", "keyboard.press");
    timed(page.mouse, "move", "mouse.move");
    return page;
  };
  const wrapContext = (ctx) => { const np = ctx.newPage; ctx.newPage = async (...a) => wrapPage(await np.apply(ctx, a)); return ctx; };
  const np = browser.newPage, nc = browser.newContext;
  browser.newPage = async (...a) => wrapPage(await np.apply(browser, a));
  browser.newContext = async (...a) => wrapContext(await nc.apply(browser, a));
  process.on("exit", () => {
    const who = process.argv[1].split("/").pop();
    fs.appendFileSync(file, [...spent].sort((a, b) => b[1][0] - a[1][0]).map(([m, [ms, n]]) => `${who} ${m}: ${(ms / 1000).toFixed(1)} s in ${n} calls\n`).join(""));
  });
}

// Scrolls the scroller `sel` down `steps` times by `px` (a wheel notch of a
// long table) and times each step's main-thread work: the scroll, the page's
// answer to it, at once in its scroll handlers or in the next frame's
// animation callbacks, and the style and layout that follow (forced then).
// Paint is left out: headless Chromium rasterises in software on a shared CI
// core, which says nothing of the page.  Returns {n, median, p90, worst} (ms)
// and added: the most <tr> a step put into the DOM (a virtualised table adds
// the rows that come into sight, a dozen a notch; one drawn anew, every row
// in sight).
export async function scrollFrames(page, sel, steps = 60, px = 300) {
  return page.evaluate(async ([sel, steps, px]) => {
    const sc = document.querySelector(sel);
    if (!sc) return { n: 0, why: "no " + sel };
    const raf = () => new Promise((r) => requestAnimationFrame(r));
    let added = 0, most = 0;
    const count = (ms) => { for (const m of ms) for (const x of m.addedNodes) if (x.nodeName === "TR") added++; };
    const mo = new MutationObserver(count);
    mo.observe(sc, { childList: true, subtree: true });
    sc.scrollTop = 0;
    sc.dispatchEvent(new Event("scroll")); // settled at the top: the rows in sight as it is now
    await raf(); await raf();
    mo.takeRecords();
    const ms = [];
    for (let k = 0; k < steps && sc.scrollTop + sc.clientHeight < sc.scrollHeight; k++) {
      added = 0;
      let tA = 0;
      requestAnimationFrame(() => { tA = performance.now(); }); // the next frame's first callback
      const t0 = performance.now();
      sc.scrollTop += px;
      sc.dispatchEvent(new Event("scroll")); // its handlers, now
      const now = performance.now() - t0;
      // the next frame: the page's animation callbacks (a page that renders
      // there asked for one in its handler, after tA's), then this one's
      // style and layout; the wait for the frame itself not counted
      const frame = await new Promise((r) => requestAnimationFrame(() => {
        void document.body.offsetHeight; void sc.lastElementChild.getBoundingClientRect();
        r(performance.now() - tA);
      }));
      ms.push(now + frame);
      await raf();
      count(mo.takeRecords());
      most = Math.max(most, added);
    }
    mo.disconnect();
    const s = ms.slice().sort((a, b) => a - b), q = (f) => s.length ? s[Math.min(s.length - 1, Math.floor(f * s.length))] : NaN;
    return { n: s.length, median: q(0.5), p90: q(0.9), worst: s[s.length - 1], added: most, top: sc.scrollTop };
  }, [sel, steps, px]);
}

// The elements in `sel` (itself included) whose content is wider than their
// box (scrollWidth beyond clientWidth), cut where nobody can read it.  Left
// out: elements that show it another way (text-overflow: ellipsis with the
// full text in a title, theirs or an ancestor's), and those that scroll on
// purpose (overflow-x auto or scroll).  Returns [{what, sw, cw, text}].
export async function overflowing(page, sel) {
  return page.evaluate((sel) => {
    const out = [];
    for (const root of document.querySelectorAll(sel)) for (const e of [root, ...root.querySelectorAll("*")]) {
      if (!(e instanceof HTMLElement) || !e.offsetParent && getComputedStyle(e).position !== "fixed") continue; // not shown
      if (e.scrollWidth <= e.clientWidth + 1) continue;
      const cs = getComputedStyle(e);
      if (cs.overflowX === "auto" || cs.overflowX === "scroll") continue;
      if (cs.textOverflow === "ellipsis" && e.closest("[title]")) continue;
      if (cs.display === "inline") continue; // an inline box's width is its text's: its block is checked
      out.push({ what: e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\s+/).join(".") : ""), sw: e.scrollWidth, cw: e.clientWidth, text: (e.textContent || "").trim().slice(0, 60) });
    }
    return out;
  }, sel);
}

// Waiting for the page to be done instead of sleeping a fixed time.  track()
// (once per browser context, before its pages open) makes every page count
// its pending work: fetches and the reading of their bodies (a report's
// blobs are inflated through a Response too), timers of at most 1 s (the
// views' debounces: a filter's 150 ms, a resize's 100 ms), animation-frame
// callbacks.  settle(page) then waits until none is pending for two looks in
// a row, 16 ms apart, at most `limit` ms (a page that keeps animating is
// left as it is then; nothing fails).  What a page does after it settled
// (a click's handler) has begun by the time the action that caused it
// returned: settle after an action sees it.
function busyCounter() {
  if (window.__busy) return;
  let n = 0;
  const done = (p) => { n++; const f = () => { n--; }; p.then(f, f); return p; };
  const fetch0 = window.fetch;
  if (fetch0) window.fetch = function (...a) { return done(fetch0.apply(this, a)); };
  for (const m of ["json", "text", "arrayBuffer", "blob"]) {
    const f0 = Response.prototype[m];
    Response.prototype[m] = function (...a) { return done(f0.apply(this, a)); };
  }
  const timers = new Set(), st0 = window.setTimeout, ct0 = window.clearTimeout;
  window.setTimeout = function (f, ms, ...a) {
    if (!(ms <= 1000) || typeof f !== "function") return st0.call(window, f, ms, ...a);
    const id = st0.call(window, (...x) => { timers.delete(id); f(...x); }, ms, ...a);
    timers.add(id);
    return id;
  };
  window.clearTimeout = function (id) { timers.delete(id); return ct0.call(window, id); };
  const frames = new Set(), raf0 = window.requestAnimationFrame, caf0 = window.cancelAnimationFrame;
  window.requestAnimationFrame = function (f) {
    const id = raf0.call(window, (t) => { frames.delete(id); f(t); });
    frames.add(id);
    return id;
  };
  window.cancelAnimationFrame = function (id) { frames.delete(id); return caf0.call(window, id); };
  window.__busy = { count: () => n + timers.size + frames.size, wait: st0, frame: raf0 };
}

export function track(context) { return context.addInitScript(busyCounter); }

export async function settle(page, limit = 10000) {
  const t0 = Date.now();
  const done = await page.evaluate((limit) => new Promise((resolve) => {
    const b = window.__busy;
    if (!b) { resolve(false); return; }
    const t0 = performance.now();
    let quiet = 0;
    const look = () => {
      quiet = b.count() ? 0 : quiet + 1;
      if (quiet >= 2 || performance.now() - t0 > limit) resolve(quiet >= 2);
      else b.wait.call(window, look, 16);
    };
    // the first look after the next frame: what the page does on a resize (its
    // resize observers, a debounce they start) begins there, not at once
    b.frame.call(window, () => look());
  }), limit);
  spend(done ? "settle" : "settle, gave up at its limit", Date.now() - t0);
  return done;
}

// A page with the counter, its errors collected (uncaught exceptions and
// console errors) in page.errors.
export async function newPage(browser, opts = {}) {
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, ...opts });
  await track(context);
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") page.errors.push(m.text()); });
  return page;
}

// eachPage(run): one browser for every page a script checks (starting
// Chromium costs seconds on a loaded CI core; a script used to start one per
// page).  The script's arguments are one page's (run(browser, args) as
// before), or "--pages LIST": a file of one page a line, NAME then that
// page's arguments, separated by tabs (tests/lib.sh's t_page writes them).
// For each page a line "page NAME", then its checks named "NAME: CHECK",
// then "time NAME: S s", the seconds it took.
// Pages run one after the other, each in contexts of its own, closed after
// it (nothing carries over: storage, viewport, colour scheme).  A page that
// throws fails "NAME: the page ran to its end" and the next one runs; a
// browser that died is started again.  Exits 1 when a check failed.
export async function eachPage(run) {
  const argv = process.argv.slice(2);
  const list = argv[0] !== "--pages" ? [{ name: "", args: argv }]
    : fs.readFileSync(argv[1], "utf8").split("\n").filter((l) => l).map((l) => {
      const [name, ...args] = l.split("\t");
      return { name, args };
    });
  let browser = await launch();
  try {
    for (const { name, args } of list) {
      if (name) console.log("page " + name);
      checks.prefix = name ? name + ": " : "";
      if (!browser.isConnected()) browser = await launch();
      const t0 = Date.now();
      try {
        await run(browser, args);
      } catch (e) {
        ok("the page ran to its end", false, String((e && e.stack) || e).split("\n").filter((l) => !/\x1b/.test(l)).slice(0, 6).join(" | "));
      } finally {
        for (const c of browser.contexts()) await c.close().catch(() => {});
        checks.prefix = "";
        // where a part's time goes (tests/lib.sh's t_browse shows it after the page's name)
        console.log(`time ${name || "page"}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      }
    }
  } finally {
    await browser.close().catch(() => {});
  }
  process.exit(checks.failed ? 1 : 0);
}
