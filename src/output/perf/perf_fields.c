/*
 * perf_fields.c — the perf JSON's field kinds (perf_fields.h).
 */
#include "perf_fields.h"

#include <string.h>

/* ns as exact µs: 98598123 -> "98598.123", 5000 -> "5", -1500 -> "-1.5". */
void ml_perf_json_us(jw *w, const char *key, int64_t ns)
{
    jw_key(w, key);
    jw_us(w, ns);
}

/* A double with at most `digits` decimals, trailing zeros dropped; null when
 * unknown (< 0) or not finite. */
void ml_perf_json_num(jw *w, const char *key, double v, int digits)
{
    jw_key(w, key);
    if (v < 0) jw_null(w);
    else jw_fixed(w, v, digits);
}

const char *ml_perf_step_label(const char *name)
{
    if (!name) return "(whole trace)";
    static const char prefix[] = "ProfilerStep#";
    if (!strncmp(name, prefix, sizeof prefix - 1) && name[sizeof prefix - 1]) return name + sizeof prefix - 1;
    return name;
}
