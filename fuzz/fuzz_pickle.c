/* fuzz_pickle.c — libFuzzer target: the safe pickle reader and the snapshot
 * importer on arbitrary bytes must fail cleanly, never crash or hang. */
#include <stdint.h>
#include <stdlib.h>

#include "importer.h"
#include "pickle.h"
#include "pyvalue.h"
#include "stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ml_err e;
    ml_pv v;
    char text[256];
    /* The reader alone, then a walk of what it built: in place (a memory
     * source is read as a view, as a plain file is), then through its buffer
     * in short reads (as gzip and stdin are). */
    for (int buffered = 0; buffered < 2; buffered++) {
        ml_pvs *st = ml_pvs_new(NULL);
        ml_source *src = ml_source_from_memory("fuzz.pickle", data, size);
        if (buffered) ml_source_limit_reads(src, 13);
        if (ml_pickle_read(src, st, NULL, NULL, &v, &e) == 0) ml_pv_repr(st, v, text, sizeof text);
        ml_source_close(src);
        ml_pvs_free(st);
    }
    /* The whole importer (streaming hook, frame conversion, replay), then
     * what `summary` computes from it (peaks, the live set grouped by stack). */
    ml_source *src = ml_source_from_memory("fuzz.pickle", data, size);
    ml_profile *p = ml_profile_new("fuzz.pickle", "torch-snapshot");
    if (ml_snapshot_import(src, p, NULL, &e) == 0)
        for (size_t d = 0; d < p->devices.len; d++) {
            ml_device_stats st;
            ml_device_stats_compute(p, (int)d, ML_BY_STACK, &st);
            ml_device_stats_free(&st);
        }
    ml_source_close(src);
    ml_profile_free(p);
    return 0;
}
