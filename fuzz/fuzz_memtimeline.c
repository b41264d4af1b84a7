/* libFuzzer target: the PyTorch memory timeline importer (raw and coalesced,
 * plain or gzip) on arbitrary bytes, then categories, the summary figures and
 * both PyTorch exports of what it read. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "categories.h"
#include "export.h"
#include "importer.h"
#include "stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ml_source *src = ml_source_from_memory("fuzz.json", data, size);
    const unsigned char *head;
    ml_err e = {{0}};
    size_t n = ml_source_peek(src, &head, 4096, &e);
    (void)ml_memtimeline_sniff("fuzz.json", head, n);
    ml_profile *p = ml_profile_new("fuzz.json", "torch-memory-timeline");
    if (ml_memtimeline_import(src, p, NULL, &e) == 0) {
        ml_categorize(p);
        for (size_t d = 0; d < p->devices.len; d++) {
            ml_device_stats st;
            ml_device_stats_compute(p, (int)d, ML_BY_CATEGORY, &st);
            ml_device_stats_free(&st);
            FILE *f = fopen("/dev/null", "w");
            if (f) {
                ml_export_torch(f, p, (int)d, ML_EXPORT_RAW);
                ml_export_torch(f, p, (int)d, ML_EXPORT_TIMELINE);
                fclose(f);
            }
        }
    } else if (!strstr(e.msg, "fuzz.json")) {
        fprintf(stderr, "error message does not name the file: %s\n", e.msg);
        __builtin_trap();
    }
    ml_profile_free(p);
    ml_source_close(src);
    return 0;
}
