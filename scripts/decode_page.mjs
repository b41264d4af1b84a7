// scripts/decode_page.mjs PAGE > CANON — a report page with every column
// decoded by the page's own decoder (web/src/decode.js decodeColumn: base64,
// zlib, byte planes, deltas): each column descriptor {"b","dt","n",...} in the
// page's JSON scripts is replaced by {dt, values}, the blob <script>s are left
// out, the rest of the page kept but the app (web/src's style.css and modules,
// the page's <style> and <script type="module">: its code, not its data; a
// change of the web app alone leaves the canonical form as it was).  Two pages
// whose canonical forms are equal carry the same data (scripts/golden_cmp).
import { readFileSync } from "node:fs";
import { decodeColumn } from "../web/src/decode.js";

const page = readFileSync(process.argv[2], "latin1")
  .replace(/(<style>)[\s\S]*?(<\/style>)/, "$1[the app's style, left out]$2")
  .replace(/(<script type="module">)[\s\S]*?(<\/script>)/, "$1[the app's code, left out]$2");
const blobs = new Map(), used = new Set();
const rest = page.replace(/<script type="application\/x-memlens" id="ml-b(\d+)">([^<]*)<\/script>\n?/g, (_, b, text) => {
  blobs.set(Number(b), text);
  return "";
});
const blobText = (b) => {
  if (!blobs.has(b)) throw new Error(`no blob ${b}`);
  used.add(b);
  return blobs.get(b);
};
const isColumn = (x) => typeof x.b === "number" && "dt" in x && "n" in x;
async function walk(x) {
  if (Array.isArray(x)) return Promise.all(x.map(walk));
  if (!x || typeof x !== "object") return x;
  if (isColumn(x)) return { dt: x.dt, values: Array.from(await decodeColumn(x, blobText)) };
  const out = {};
  for (const k of Object.keys(x).sort()) out[k] = await walk(x[k]);
  return out;
}
const parts = [];
let pos = 0;
for (const m of rest.matchAll(/(<script type="application\/json" id="[^"]+">)([\s\S]*?)<\/script>/g)) {
  const at = m.index + m[1].length;
  parts.push(rest.slice(pos, at));
  let json;
  try { json = JSON.parse(m[2]); } catch { json = undefined; }
  parts.push(json === undefined ? m[2] : JSON.stringify(await walk(json)));
  pos = at + m[2].length;
}
parts.push(rest.slice(pos));
const unused = [...blobs.keys()].filter((b) => !used.has(b)).sort((a, b) => a - b);
parts.push(`\nUNUSED BLOBS [${unused.join(", ")}]\n`);
process.stdout.write(parts.join(""));
