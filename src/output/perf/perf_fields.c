/*
 * perf_fields.c — the perf JSON's field kinds (perf_fields.h).
 */
#include "perf_fields.h"

#include <string.h>

#include "steps.h"

/* a step role is the time field of its index */
_Static_assert(ML_PT_KERNEL == (int)ML_ROLE_KERNEL && ML_PT_MEMCPY == (int)ML_ROLE_MEMCPY &&
                   ML_PT_MEMSET == (int)ML_ROLE_MEMSET && ML_PT_COMMUNICATION == (int)ML_ROLE_COMMUNICATION &&
                   ML_PT_RUNTIME == (int)ML_ROLE_RUNTIME && ML_PT_DATALOADER == (int)ML_ROLE_DATALOADER &&
                   ML_PT_CPU_EXEC == (int)ML_ROLE_CPU_EXEC && ML_PT_OTHER == (int)ML_ROLE_OTHER &&
                   ML_PT_TOTAL == (int)ML_ROLE__COUNT,
               "the roles lead the perf time fields");

/* Every time field's two keys, from its stem. */
static const char *const time_keys[2][ML_PT__COUNT] = {
#define ML_PERF_FIELD_NS(NAME, stem) #stem "_ns",
#define ML_PERF_FIELD_US(NAME, stem) #stem "_us",
    {ML_PERF_TIME_FIELDS(ML_PERF_FIELD_NS)},
    {ML_PERF_TIME_FIELDS(ML_PERF_FIELD_US)},
#undef ML_PERF_FIELD_NS
#undef ML_PERF_FIELD_US
};

void ml_perf_json_time(jw *w, ml_perf_units u, ml_perf_time_field f, int64_t ns)
{
    jw_key(w, time_keys[u][f]);
    if (u == ML_PERF_US) jw_us(w, ns);
    else jw_i64(w, ns);
}

void ml_perf_json_op_times(jw *w, ml_perf_units u, int64_t host_self, int64_t host_total, int64_t device_self,
                           int64_t device_total)
{
    ml_perf_json_time(w, u, ML_PT_HOST_SELF, host_self);
    ml_perf_json_time(w, u, ML_PT_HOST_TOTAL, host_total);
    ml_perf_json_time(w, u, ML_PT_DEVICE_SELF, device_self);
    ml_perf_json_time(w, u, ML_PT_DEVICE_TOTAL, device_total);
}

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
