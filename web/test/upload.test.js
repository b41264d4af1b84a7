// upload.js's pure parts: the route, the progress line, the error line, and
// the queue (one file after another; a failure stops none of the others).
import test from "node:test";
import assert from "node:assert/strict";
import { uploadUrl, progressText, errorOf, uploadAll, mountUpload } from "../src/upload.js";

test("the upload route encodes the name (the server refuses names that are paths)", () => {
  assert.equal(uploadUrl("/api/", "train.pt.trace.json.gz"), "/api/upload?name=train.pt.trace.json.gz");
  assert.equal(uploadUrl("/api/", "a b&c/../d.json"), "/api/upload?name=a%20b%26c%2F..%2Fd.json");
});

test("progress: sent of total, then importing once all is sent", () => {
  assert.equal(progressText(0, 4 * 2 ** 20), "0 B of 4.00 MiB (0%)");
  assert.equal(progressText(2 ** 20, 4 * 2 ** 20), "1.00 MiB of 4.00 MiB (25%)");
  assert.equal(progressText(4 * 2 ** 20, 4 * 2 ** 20), "4.00 MiB sent, importing…");
  assert.equal(progressText(512, 0), "512 B sent");
});

test("errors: the server's line as is, else what happened", () => {
  assert.equal(errorOf(422, { error: "bad.json: byte 0: unknown format" }), "bad.json: byte 0: unknown format");
  assert.equal(errorOf(502, null), "the server answered 502");
  assert.match(errorOf(0, null), /cut off/);
});

test("uploadAll: in order, one at a time, failures reported and skipped", async () => {
  const files = [{ name: "a.json", size: 10 }, { name: "bad.json", size: 3 }, { name: "c.pickle", size: 7 }, { name: "gone.json", size: 1 }];
  const log = [];
  let inFlight = 0, most = 0;
  const send = async (f, progress) => {
    inFlight++; most = Math.max(most, inFlight);
    progress(f.size / 2, f.size);
    await new Promise((r) => setTimeout(r, 5));
    progress(f.size, f.size);
    inFlight--;
    if (f.name === "bad.json") return { status: 422, body: { error: "bad.json: byte 0: unknown format" } };
    if (f.name === "gone.json") throw new Error("network down");
    return { status: 200, body: { index: f.name === "a.json" ? 0 : 1, added: 1, ranks: [] } };
  };
  const added = await uploadAll(files, send, {
    start: (f, k) => log.push(`start ${k} ${f.name}`),
    progress: (k, l, t) => log.push(`progress ${k} ${l}/${t}`),
    done: (k, a) => log.push(`done ${k} index ${a.index}`),
    failed: (k, msg) => log.push(`failed ${k} ${msg}`),
  });
  assert.equal(most, 1);
  assert.deepEqual(added.map((a) => a.index), [0, 1]);
  assert.deepEqual(log, [
    "start 0 a.json", "progress 0 5/10", "progress 0 10/10", "done 0 index 0",
    "start 1 bad.json", "progress 1 1.5/3", "progress 1 3/3", "failed 1 bad.json: byte 0: unknown format",
    "start 2 c.pickle", "progress 2 3.5/7", "progress 2 7/7", "done 2 index 1",
    "start 3 gone.json", "progress 3 0.5/1", "progress 3 1/1", "failed 3 network down",
  ]);
});

test("only served pages mount it (no document here, no upload)", () => {
  assert.equal(mountUpload({ source: { ensureRank() {}, slotRank() {} } }), null);
});
