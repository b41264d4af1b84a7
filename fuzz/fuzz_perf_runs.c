/* libFuzzer target: the "runs" JSON of `memlens perf --json` (perf_runs.h)
 * and the text views fitted to a narrow width (perf_views.h), the critical
 * path's included, on arbitrary bytes imported as a Kineto trace, all to
 * /dev/null; and the stragglers of the trace taken as two ranks.  Seeds:
 * fuzz_perf's, and traces with cuda_sync events and CUPTI profiler ranges. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_common.h"
#include "perf_runs.h"
#include "perf_views.h"
#include "stragglers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *null = fuzz_null();
    ml_source *src;
    ml_profile *p = fuzz_kineto(data, size, &src);
    if (!p) return 0;
    ml_perf perf;
    bool ok = ml_perf_compute(p, &perf);
    if (ok) ml_perf_want_critical_path(p, &perf);
    ml_profile *two[2] = {p, p};
    const char *why;
    ml_stragglers_free(ml_stragglers_compute(two, 2, &why));
    jw w;
    jw_init(&w, null, false);
    ml_perf_run_json(&w, p, ok ? &perf : NULL, size & 1 ? ML_PERF_BY_SHAPE : ML_PERF_BY_NAME, (int)(size % 4), NULL);
    if (ok) {
        ml_perf_view_opts o = {.views = ML_VIEW_ALL | ML_VIEW_CRITPATH, .group = size & 2 ? ML_PERF_BY_SHAPE : ML_PERF_BY_NAME,
                               .top = (int)(size % 3), .width = (int)(size % 90)};
        ml_perf_views_text(null, p, &perf, &o, NULL);
        ml_perf_free(&perf);
    }
    ml_profile_free(p);
    ml_source_close(src);
    return 0;
}
