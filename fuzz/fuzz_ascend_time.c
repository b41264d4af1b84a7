/* fuzz_ascend_time.c — libFuzzer target for the Ascend time files read
 * alone (importers/ascend_time.c, ascend_kernels.c): any bytes as
 * trace_view.json (events, Task Types, NPU MEM counters, operator stacks),
 * kernel_details.csv or step_trace_time.csv, then the time analyses that
 * read what they give (kernels by Accelerator Core, steps, HTA's GPU time)
 * and kernel_details.csv's cores read onto those tasks;
 * a profile or one error naming the file, never a crash.  The first byte
 * picks the header put before the rest, so that the CSV readers are reached. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ascend.h"
#include "fuzz_common.h"

static const char *const heads[] = {
    "",
    "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Stream ID\n",
    "Device_id,Name,Task Type,Start Time(us),Duration(us),Stream Id,Accelerator Core\n",
    "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Preparing\n",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *head = heads[size ? data[0] % 4 : 0];
    size_t hn = strlen(head);
    char *buf = malloc(hn + size + 1);
    if (!buf) return 0;
    memcpy(buf, head, hn);
    if (size) memcpy(buf + hn, data + 1, size - 1);
    size_t n = hn + (size ? size - 1 : 0);
    ml_source *src = ml_source_from_memory("fuzz_ascend", buf, n);
    ml_profile *p = ml_profile_new("fuzz_ascend", "ascend-text");
    p->trace = ml_trace_new();
    ml_err e;
    if (ml_ascend_time_import(src, p, NULL, &e) == 0) {
        ml_source *again = ml_source_from_memory("fuzz_ascend", buf, n); /* the cores beside the tasks */
        ml_ascend_kernel_details_cores(again, p, &e);
        ml_source_close(again);
        fuzz_time_analyses(p);
    } else if (!strstr(e.msg, "fuzz_ascend")) {
        fprintf(stderr, "error message does not name the file: %s\n", e.msg);
        __builtin_trap();
    }
    ml_profile_free(p);
    ml_source_close(src);
    free(buf);
    return 0;
}
