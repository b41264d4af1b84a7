"""tests/structure.py — the layout rules of src/ (issue 37), checked on the tree:

  cycles   no two modules include each other, directly or round a loop (a module
           is NAME.c with NAME.h; includes resolve as the Makefile's -I list does)
  lines    no C file over LIMIT lines (the file's name and count when one is)

Prints one line per finding and "N modules, M includes" on success; exits 1
on a finding.  Usage: python3 tests/structure.py [--root DIR] [cycles|lines]...  (DIR: src)
"""
import collections
import os
import re
import sys

LIMIT = 1500
SRC = "src"


def sources():
    out = {}
    for root, _, names in os.walk(SRC):
        for n in names:
            if n.endswith((".c", ".h")):
                p = os.path.join(root, n)
                with open(p, encoding="utf-8", errors="replace") as f:
                    out[p] = f.read()
    return out


def module_graph(files):
    dirs = sorted({os.path.dirname(f) for f in files}) + [SRC]
    def resolve(frm, inc):
        for d in [os.path.dirname(frm)] + dirs:
            c = os.path.normpath(os.path.join(d, inc))
            if c in files:
                return c
        return None
    g, edges = collections.defaultdict(set), 0
    for f, text in files.items():
        m = os.path.splitext(f)[0]
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            r = resolve(f, inc)
            if r and os.path.splitext(r)[0] != m:
                g[m].add(os.path.splitext(r)[0])
                edges += 1
    return g, edges


def cycles(g):
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on, stack, found, counter = {}, {}, set(), [], [], [0]
    for root in sorted(g):
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = counter[0]; counter[0] += 1
        stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]; counter[0] += 1
                    stack.append(w); on.add(w)
                    work.append((w, iter(sorted(g.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop(); on.discard(x); comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def main(args):
    global SRC
    if args[:1] == ["--root"]:
        SRC, args = args[1], args[2:]
    checks = args or ["cycles", "lines"]
    files = sources()
    bad = 0
    if "cycles" in checks:
        g, edges = module_graph(files)
        for comp in cycles(g):
            print("include cycle: " + " <-> ".join(comp))
            bad += 1
        print(f"cycles: {len(g)} modules, {edges} includes")
    if "lines" in checks:
        for p in sorted(files):
            if p.endswith(".c"):
                n = files[p].count("\n")
                if n > LIMIT:
                    print(f"over {LIMIT} lines: {p} has {n}")
                    bad += 1
        print(f"lines: {sum(p.endswith('.c') for p in files)} C files")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
