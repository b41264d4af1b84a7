/* bytesize.c — a number of bytes in binary units; see bytesize.h. */
#include "bytesize.h"

#include <inttypes.h>
#include <stdio.h>

char *ml_fmt_bytes(int64_t bytes, char *buf, size_t cap)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    /* the magnitude unsigned: -INT64_MIN does not fit an int64_t */
    uint64_t m = bytes < 0 ? (uint64_t)0 - (uint64_t)bytes : (uint64_t)bytes;
    double v = (double)m;
    int u = 0;
    while (v >= 1024 && u < 5) v /= 1024, u++;
    if (u == 0) snprintf(buf, cap, "%s%" PRIu64 " B", bytes < 0 ? "-" : "", m);
    else snprintf(buf, cap, "%s%.2f %s", bytes < 0 ? "-" : "", v, units[u]);
    return buf;
}
