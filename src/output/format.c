/* format.c — human-readable numbers; see format.h. */
#include "format.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

char *ml_fmt_count(int64_t n, char *buf, size_t cap)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%" PRId64, n < 0 ? -n : n);
    size_t len = 0, nd = 0;
    while (digits[nd]) nd++;
    if (n < 0 && len + 1 < cap) buf[len++] = '-';
    for (size_t i = 0; i < nd && len + 2 < cap; i++) {
        buf[len++] = digits[i];
        if ((nd - i - 1) % 3 == 0 && i + 1 < nd) buf[len++] = ',';
    }
    buf[len] = 0;
    return buf;
}

char *ml_fmt_time(int64_t ns, bool absolute, char *buf, size_t cap)
{
    if (!absolute) {
        snprintf(buf, cap, "%s%" PRId64 ".%06" PRId64 " s", ns < 0 ? "-" : "+", (ns < 0 ? -ns : ns) / 1000000000,
                 ((ns < 0 ? -ns : ns) % 1000000000) / 1000);
        return buf;
    }
    char utc[64];
    snprintf(buf, cap, "%s UTC", ml_fmt_utc(ns, ns % 1000 ? 9 : 6, utc, sizeof utc));
    return buf;
}

char *ml_fmt_utc(int64_t ns, int digits, char *buf, size_t cap)
{
    time_t secs = (time_t)(ns / 1000000000);
    int64_t frac = ns % 1000000000;
    if (frac < 0) frac += 1000000000, secs--;
    struct tm tm;
    gmtime_r(&secs, &tm);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", &tm);
    if (digits == 6) snprintf(buf, cap, "%s.%06" PRId64, date, frac / 1000);
    else snprintf(buf, cap, "%s.%09" PRId64, date, frac);
    return buf;
}

char *ml_fmt_duration(int64_t ns, char *buf, size_t cap)
{
    double v = (double)ns;
    if (ns >= 1000000000) snprintf(buf, cap, "%.3f s", v / 1e9);
    else if (ns >= 1000000) snprintf(buf, cap, "%.3f ms", v / 1e6);
    else if (ns >= 1000) snprintf(buf, cap, "%.3f us", v / 1e3);
    else snprintf(buf, cap, "%" PRId64 " ns", ns);
    return buf;
}

