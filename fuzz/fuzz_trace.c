/* libFuzzer target: the time side of a Chrome/Kineto trace (trace.h) on
 * arbitrary bytes: the Kineto import with the store on, the Ascend
 * trace_view.json reading of the same bytes, then the analyses over the
 * store (modules, distributed). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ascend.h"
#include "distributed.h"
#include "importer.h"
#include "modules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ml_source *src = ml_source_from_memory("fuzz.json", data, size);
    ml_profile *p = ml_profile_new("fuzz.json", "kineto");
    p->trace = ml_trace_new();
    ml_err e;
    if (ml_kineto_import(src, p, &e) == 0) {
        ml_modules_free(ml_modules_compute(p));
        ml_distributed_free(ml_distributed_compute(&p, 1));
    } else if (!strstr(e.msg, "fuzz.json")) {
        fprintf(stderr, "error message does not name the file: %s\n", e.msg);
        __builtin_trap();
    }
    ml_profile_free(p);
    ml_source_close(src);

    src = ml_source_from_memory("trace_view.json", data, size);
    p = ml_profile_new("x", "ascend-text");
    p->trace = ml_trace_new();
    if (ml_ascend_trace_view_events(src, p, &e) == 0) {
        ml_profile_finish(p);
        ml_modules_free(ml_modules_compute(p));
    }
    ml_profile_free(p);
    ml_source_close(src);
    return 0;
}
