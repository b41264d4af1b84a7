// frames.js — which frames of a call stack the detail panel shows by
// default.  As PyTorch's MemoryViz does (its frameFilter), the frames of the
// stack capture itself (torch::unwind, CapturedTraceback), of the caching
// allocator, of the dispatcher's glue and of the Python interpreter's own C
// code are hidden: what remains is the user's Python and the operators it
// called.  The page offers to show them all.

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
