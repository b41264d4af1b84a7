/* fuzz_headrank.c — libFuzzer target for the head scan of a Kineto trace
 * (importers/headrank.h): any bytes, cut anywhere, give a rank or false,
 * never a read past the end. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "headrank.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size ? size : 1); /* exactly size bytes: ASan sees a read past them */
    if (!copy) return 0;
    memcpy(copy, data, size);
    int r, w;
    if (ml_head_rank(copy, size, &r, &w) && r < 0) abort();
    free(copy);
    return 0;
}
