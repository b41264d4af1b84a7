/* libFuzzer target: the JSON scanner and the Kineto importer on arbitrary bytes
 * (plain or gzip), followed by the analyses a summary runs. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "attribute.h"
#include "importer.h"
#include "stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ml_source *src = ml_source_from_memory("fuzz.json", data, size);
    ml_profile *p = ml_profile_new("fuzz.json", "kineto");
    ml_err e;
    if (ml_kineto_import(src, p, NULL, &e) == 0) {
        ml_attribute(p);
        for (size_t d = 0; d < p->devices.len; d++) {
            ml_device_stats st;
            ml_device_stats_compute(p, (int)d, ML_BY_STACK, &st);
            ml_device_stats_free(&st);
        }
    } else if (!strstr(e.msg, "fuzz.json")) {
        fprintf(stderr, "error message does not name the file: %s\n", e.msg);
        __builtin_trap();
    }
    ml_profile_free(p);
    ml_source_close(src);
    return 0;
}
