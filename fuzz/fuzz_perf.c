/* libFuzzer target: the profiler views (analysis/perfdata.h) on arbitrary
 * bytes imported as a Kineto trace with its time side: steps, GPU metrics,
 * operator trees, operator and kernel tables, recommendations, and the perf
 * object written as JSON and the CSV tables, all to /dev/null (the text
 * views `perf` prints: fuzz_perf_runs). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_common.h"
#include "perf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *null = fuzz_null();
    ml_source *src;
    ml_profile *p = fuzz_kineto(data, size, &src);
    if (!p) return 0;
    ml_perf perf;
    if (ml_perf_compute(p, &perf)) {
        jw w;
        jw_init(&w, null, false);
        ml_perf_json_write(&w, p, &perf, 0, NULL);
        ml_perf_csv(null, p, &perf, ML_PERF_TABLE_OPERATORS, ML_PERF_BY_SHAPE);
        ml_perf_csv(null, p, &perf, ML_PERF_TABLE_KERNELS, ML_PERF_BY_OP);
        ml_perf_free(&perf);
    }
    ml_profile_free(p);
    ml_source_close(src);
    return 0;
}
