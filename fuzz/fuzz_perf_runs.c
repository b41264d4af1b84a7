/* libFuzzer target: the "runs" JSON of `memlens perf --json` (perf_runs.h)
 * and the text views fitted to a narrow width (perf_views.h), on arbitrary
 * bytes imported as a Kineto trace, all to /dev/null.  Seeds: fuzz_perf's. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "importer.h"
#include "perf_runs.h"
#include "perf_views.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *null;
    if (!null) null = fopen("/dev/null", "w");
    ml_source *src = ml_source_from_memory("fuzz.json", data, size);
    ml_profile *p = ml_profile_new("fuzz.json", "kineto");
    p->trace = ml_trace_new();
    ml_err e;
    if (ml_kineto_import(src, p, &e) == 0) {
        ml_perf perf;
        bool ok = ml_perf_compute(p, &perf);
        jw w;
        jw_init(&w, null, false);
        ml_perf_run_json(&w, p, ok ? &perf : NULL, size & 1 ? ML_PERF_BY_SHAPE : ML_PERF_BY_NAME, (int)(size % 4), NULL);
        if (ok) {
            ml_perf_view_opts o = {.views = ML_VIEW_ALL, .group = size & 2 ? ML_PERF_BY_SHAPE : ML_PERF_BY_NAME,
                                   .top = (int)(size % 3), .width = (int)(size % 90)};
            ml_perf_views_text(null, p, &perf, &o, NULL);
            ml_perf_free(&perf);
        }
    }
    ml_profile_free(p);
    ml_source_close(src);
    return 0;
}
