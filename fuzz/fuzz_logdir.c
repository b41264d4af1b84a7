/*
 * fuzz_logdir.c — the logdir's readers of names and heads (importers/logdir.h):
 * the input's first line as a file name (worker, timestamp, and a span asked
 * for against it), the whole input as a trace's head for its distributedInfo
 * rank.  Nothing may crash, hang or read out of bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logdir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t line = 0;
    while (line < size && data[line] != '\n') line++;
    char *name = malloc(line + 1);
    if (!name) return 0;
    memcpy(name, data, line);
    name[line] = 0;
    char *worker, *stamp;
    if (ml_logdir_parse_name(name, &worker, &stamp)) {
        ml_logdir_place pl = {NULL, worker, stamp, 1, 1};
        char buf[64] = "1"; /* the second line as the span asked for */
        if (line + 1 < size) {
            size_t k = size - line - 1 < sizeof buf - 1 ? size - line - 1 : sizeof buf - 1;
            memcpy(buf, data + line + 1, k);
            buf[k] = 0;
        }
        (void)ml_logdir_span_is(&pl, buf);
        free(worker);
        free(stamp);
    }
    free(name);
    (void)ml_logdir_rank_in(data, size);
    return 0;
}
