// lib.mjs — what the page checks share: the "ok NAME" / "FAIL NAME: why"
// lines they print (the tests/cli_*_browser.sh scripts count them) and the
// headless Chromium they drive ($CHROMIUM, else /usr/bin/chromium).
import { chromium } from "playwright-core";

// checks.failed: how many checks failed so far (each script is its own process).
export const checks = { failed: 0 };

export function ok(name, cond, why = "") {
  if (cond) console.log("ok " + name);
  else { checks.failed++; console.log("FAIL " + name + (why ? ": " + why : "")); }
}

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
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
