/*
 * modules.h — the nn.Module hierarchy of a trace and the time spent in each
 * module (the TensorBoard PyTorch profiler plugin's Module view).
 *
 * A module is a python_function slice named "nn.Module: Name" (PyTorch
 * records them with torch.profiler.profile(with_stack=True,
 * with_modules=True)), keyed like the plugin by (name, "Python module id").
 * Its parent is the nearest enclosing module slice on the same thread, which
 * is what the plugin's walk up the "Python parent id" chain finds in
 * well-formed traces.  One row per distinct path from a root (a module used
 * under two parents gives two rows), parents before children, children in
 * the order they first ran.  Per row, summed over its occurrences:
 *
 *   occurrences  module slices on that path
 *   operators    cpu ops / user annotations directly in the module: no other
 *                op or module between them and it (the plugin's operator
 *                children of a ModuleNode)
 *   host_ns      the module slices' durations
 *   device_ns    GPU work (kernels, memcpy, memset) launched from inside the
 *                module, at any depth, by the runtime call linked to it
 *
 * Strings point into the profile's string pool: valid while it lives.
 */
#ifndef ML_MODULES_H
#define ML_MODULES_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

typedef struct ml_module_row {
    const char *name;       /* "Linear_0": the slice name without "nn.Module: " */
    int64_t module_id;      /* args "Python module id", -1 if absent */
    int32_t parent;         /* row index, -1 for a root */
    uint32_t depth;         /* 0 for a root */
    uint64_t occurrences, operators;
    int64_t host_ns, device_ns;
} ml_module_row;

typedef struct ml_modules {
    ml_module_row *rows;
    size_t n;
    const char *hint;       /* when n == 0: how to record modules (static text); NULL otherwise */
} ml_modules;

/* Never NULL.  A profile without a time side (p->trace NULL) gives no rows and a hint. */
ml_modules *ml_modules_compute(const ml_profile *p);
void ml_modules_free(ml_modules *m);

#endif
