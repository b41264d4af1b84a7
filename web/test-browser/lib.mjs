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
