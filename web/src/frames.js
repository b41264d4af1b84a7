// frames.js — which frames of a call stack the detail panel shows by
// default, and in what order.  As PyTorch's MemoryViz does (its frameFilter),
// the frames of the stack capture itself (torch::unwind, CapturedTraceback),
// of the caching allocator, of the dispatcher's glue and of the Python
// interpreter's own C code are hidden: what remains is the user's Python and
// the operators it called.  The page offers to show them all.  Of those, the
// Python frames lead and the C++ frames each ran are folded under it
// (stackGroups, stackHtml): the user's code first, the ATen internals on request.

const HIDE_NAME = [
  "unwind::unwind", "CapturedTraceback::", "gather_with_cpp", "CachingAllocator::",     // capture, allocator
  "c10::impl::wrap_kernel_functor_unboxed_", "c10::impl::make_boxed_from_unboxed_functor", // dispatcher glue
  "c10::impl::BoxedKernelWrapper", "c10::Dispatcher::", "::redispatch(",
  "_start", "__libc_start_main", "__libc_init_first",                                    // process start
  "PyEval_", "PyObject_", "PyFunction_", "_PyRun_", "pymain_", "Py_RunMain", "Py_BytesMain", // the interpreter
  "method_vectorcall", "slot_tp_call", "cfunction_call", "cfunction_vectorcall", "run_eval_code_obj",
  "run_mod", "pyrun_file", "_PyFunction_Vectorcall", "vectorcall_method",
];
const HIDE_FILE = [
  "core/boxing", "/Register", "/Redispatch", "pythonrun.c", "Modules/main.c", "Objects/call.c",
  "Objects/methodobject.c", "pybind11/include", "memory_snapshot.cpp",
];

// Whether a frame ({name, file}) is capture / allocator / glue noise.
export function isNoiseFrame(f) {
  const name = f.name || "", file = f.file || "";
  if (HIDE_NAME.some((s) => name.includes(s))) return true;
  if (HIDE_FILE.some((s) => file.includes(s))) return true;
  // Register*.cpp without a directory (the dispatcher's generated registrations)
  return /^Register\w*\.cpp$/.test(file);
}

// The frames to show: all of them, or those that are not noise (never none:
// a stack of noise only is shown whole).  {frames, hidden}
export function visibleFrames(stack, showAll) {
  if (showAll) return { frames: stack, hidden: 0 };
  const frames = stack.filter((f) => !isNoiseFrame(f));
  if (!frames.length) return { frames: stack, hidden: 0 };
  return { frames, hidden: stack.length - frames.length };
}

// A file as the detail panel shows it: from the installed package on
// ("torch/functional.py", not "/long/env/lib/python3.13/site-packages/torch/...").
export function packagePath(file) { return String(file || "").replace(/^.*\/(?:site|dist)-packages\//, ""); }

// A Python frame (its file a .py or .pyx), as opposed to a C++ one.
export function isPythonFrame(f) { return /\.pyx?$/.test((f && f.file) || ""); }

// A stack (innermost first) as people read it: Python frames lead, each
// with the C++ frames that ran inside it (the ones just before it, innermost
// first) folded under it; C++ frames outside every Python frame (the
// interpreter's own, at the outer end) last.  [{py: frame|null, native: [frames]}]
// A stack without a Python frame is one group of C++ frames (py null).
export function stackGroups(frames) {
  const out = [];
  let native = [];
  for (const f of frames) {
    if (isPythonFrame(f)) { out.push({ py: f, native }); native = []; }
    else native.push(f);
  }
  if (native.length || !out.length) out.push({ py: null, native });
  return out;
}

// The HTML of a stack as the detail panel and the tooltips show it
// (stackGroups): a frame per line, its file muted; C++ frames folded into a
// "N C++ frames" line that opens (a <details>) unless the stack has no
// Python frame.  opts.fileText(file) shortens a file (the whole path in the
// line's title); opts.maxPy: Python
// frames shown (the rest counted); opts.fold false: C++ frames counted, not
// listed (tooltips, which cannot be clicked); opts.nameText(name) shortens a
// frame's name (shortFrameName, in tooltips).
export function stackHtml(frames, esc, opts = {}) {
  const file = opts.fileText || ((x) => x);
  const at = (f) => (f.line >= 0 ? ":" + f.line : ""), name = opts.nameText || ((x) => x);
  const line = (f, cls) => `<div class="${cls}"${f.file && file(f.file) !== f.file ? ` title="${esc(f.file + at(f))}"` : ""}>${esc(name(f.name))}${f.file ? ` <span class="muted">${esc(file(f.file))}${at(f)}</span>` : ""}</div>`;
  const groups = stackGroups(frames), anyPy = groups.some((g) => g.py);
  const cpp = (n) => `${n} C++ frame${n === 1 ? "" : "s"}`;
  let html = "", shown = 0;
  for (const g of groups) {
    if (g.py) {
      if (opts.maxPy != null && shown >= opts.maxPy) continue;
      shown++;
      html += line(g.py, "fr-py");
    }
    if (!g.native.length) continue;
    if (!anyPy) { // C++ only: as they are (a tooltip: the first maxPy of them)
      const n = opts.maxPy != null ? Math.min(opts.maxPy, g.native.length) : g.native.length;
      html += g.native.slice(0, n).map((f) => line(f, "fr-cpp")).join("");
      if (n < g.native.length) html += `<div class="muted">… ${g.native.length - n} more ${cpp(g.native.length - n).replace(/^\d+ /, "")}</div>`;
      continue;
    }
    const what = g.py ? `${cpp(g.native.length)} inside it` : `${cpp(g.native.length)} outside the Python frames`;
    if (opts.fold === false) html += `<div class="fr-fold muted">${what}</div>`;
    else html += `<details class="fr-fold"><summary class="muted">${what}</summary>${g.native.map((f) => line(f, "fr-cpp")).join("")}</details>`;
  }
  const pys = groups.filter((g) => g.py).length;
  if (opts.maxPy != null && pys > shown) html += `<div class="muted">… ${pys - shown} more Python frame${pys - shown === 1 ? "" : "s"}</div>`;
  return html;
}

// A C++ frame's name without its argument list and clone suffix, for narrow
// places: "at::detail::empty_cuda(c10::ArrayRef<long>, …)" -> "at::detail::empty_cuda(…)".
export function shortFrameName(n) {
  const s = String(n || "").replace(/ \[clone [^\]]*\]$/, "");
  if (!s.endsWith(")")) return s;
  let depth = 0;
  for (let k = s.length - 1; k >= 0; k--) {
    if (s[k] === ")") depth++;
    else if (s[k] === "(" && --depth === 0) return k > 0 ? s.slice(0, k) + "(…)" : s;
  }
  return s;
}
