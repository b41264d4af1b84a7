#!/usr/bin/env python3
"""scripts/decode_page.py PAGE > CANON — a report page with every blob column decoded:
each column descriptor {"b","dt","n",...} in every JSON script of the page is
replaced by its decoded values (base64, zlib, byte planes, deltas as in
web/src/decode.js); the blob <script>s are dropped, the rest of the page kept.
Two pages whose canonical forms are equal carry the same data."""
import base64, json, re, struct, sys, zlib

W = {"u8": 1, "u16": 2, "u32": 4, "i32": 4, "f64": 8}
F = {"u8": "B", "u16": "H", "u32": "I", "i32": "i", "f64": "d"}

def main(path):
    s = open(path, encoding="utf-8", errors="surrogateescape").read()
    blobs = {}
    def take(m):
        blobs[int(m.group(1))] = m.group(2)
        return ""
    rest = re.sub(r'<script type="application/x-memlens" id="ml-b(\d+)">([^<]*)</script>\n?', take, s)
    used = set()
    def col(d):
        raw = base64.b64decode(blobs[d["b"]])
        if d.get("z"):
            do = zlib.decompressobj()
            raw2 = do.decompress(raw)
            assert do.eof and not do.unused_data, "trailing data after the zlib stream"
            raw = raw2
        n, w = d["n"], W[d["dt"]]
        if d.get("s") and w > 1:
            zp = d.get("zp", 0)
            planes, k2 = [], 0
            for k in range(w):
                if zp >> k & 1: planes.append(bytes(n))
                else: planes.append(raw[k2 * n:(k2 + 1) * n]); k2 += 1
            assert k2 * n == len(raw), "planes' length"
            out = bytearray(n * w)
            for k in range(w): out[k::w] = planes[k]
            raw = bytes(out)
        assert len(raw) == n * w, ("length", d, len(raw))
        v = list(struct.unpack("<%d%s" % (n, F[d["dt"]]), raw))
        if d["dt"] == "i32" and d.get("d"):
            acc = d.get("o", 0); o = []
            for x in v: acc += x; o.append(acc)
            v = o
        used.add(d["b"])
        return {"dt": d["dt"], "values": v}
    def walk(x):
        if isinstance(x, dict):
            if "b" in x and "dt" in x and "n" in x and isinstance(x["b"], int): return col(x)
            return {k: walk(v) for k, v in x.items()}
        if isinstance(x, list): return [walk(v) for v in x]
        return x
    out = []
    pos = 0
    for m in re.finditer(r'(<script type="application/json" id="([^"]+)">)(.*?)(</script>)', rest, re.S):
        out.append(rest[pos:m.start(3)])
        try:
            j = json.loads(m.group(3).replace("<\\/", "</"))
            out.append(json.dumps(walk(j), sort_keys=True))
        except json.JSONDecodeError:
            out.append(m.group(3))
        pos = m.end(3)
    out.append(rest[pos:])
    missing = set(blobs) - used
    out.append("\nUNUSED BLOBS %s\n" % sorted(missing))
    sys.stdout.write("".join(out))

main(sys.argv[1])
