/* libFuzzer target: the time side of a Chrome/Kineto trace (trace.h) on
 * arbitrary bytes: the Kineto import with the store on, the Ascend
 * trace_view.json reading of the same bytes, then the analyses over the
 * store (modules, distributed), the Trace view's report encoding, Chrome JSON
 * and served windows / slice details. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ascend.h"
#include "distributed.h"
#include "importer.h"
#include "modules.h"
#include "api_trace.h"
#include "report.h"
#include "chrome_json.h"
#include "jsonw.h"
#include "report_trace.h"

/* The Trace view's data of a loaded store: the report's columns (capped
 * small, so that the cut runs too), the Chrome JSON, a window and details. */
static void trace_view(const ml_profile *p)
{
    if (!p->trace) return;
    int64_t origin = ml_profile_first_time(p);
    if (origin == INT64_MAX) origin = 0;
    ml_buf m = {0}, j = {0};
    ml_blobs bl = {0};
    jw w; /* the report writes the trace's keys into its meta object */
    jw_init_buf(&w, &m, false);
    jw_obj(&w);
    ml_report_trace(p, origin, 7, &w, &bl);
    jw_end(&w);
    ml_trace_chrome_json(p, &j);
    ml_sv_trace *x = ml_sv_trace_build(p, origin);
    if (x) {
        int64_t t0, t1;
        ml_sv_trace_span(x, &t0, &t1);
        ml_api_trace(x, p, (double)t0, (double)(t1 > t0 ? t1 : t0 + 1), 97, "a", 1, &j);
        ml_api_trace(x, p, (double)t0 - 5, (double)t0 + 1000, 3, NULL, 0, &j);
        for (size_t i = 0; i < ml_sv_trace_count(x) && i < 64; i++) ml_api_slice(x, p, i, &j);
        ml_api_findslice(x, p, "a", (double)t0, -1, &j);
        ml_sv_trace_free(x);
    }
    ml_buf_free(&m);
    ml_buf_free(&j);
    ml_blobs_free(&bl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ml_source *src = ml_source_from_memory("fuzz.json", data, size);
    ml_profile *p = ml_profile_new("fuzz.json", "kineto");
    p->trace = ml_trace_new();
    ml_err e;
    if (ml_kineto_import(src, p, NULL, &e) == 0) {
        ml_modules_free(ml_modules_compute(p));
        ml_distributed_free(ml_distributed_compute(&p, 1));
        trace_view(p);
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
        trace_view(p);
    }
    ml_profile_free(p);
    ml_source_close(src);
    return 0;
}
