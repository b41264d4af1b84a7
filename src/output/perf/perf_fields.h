/*
 * perf_fields.h — how the perf JSON writes its field kinds, chosen once for
 * every writer of it (perf_runs.c, perf_hta.c): times as exact µs, ratios
 * with bounded decimals, steps by their label.
 *
 * The time fields that both perf documents carry are declared once here
 * (ML_PERF_TIME_FIELDS: the key's stem), each document choosing its unit
 * once: the web's perf object (perf.c, web/DATA.md) integer ns, keys
 * "STEM_ns"; the "runs" of `memlens perf --json` (perf_runs.c, README)
 * exact µs, keys "STEM_us".  Both schemas are public, so both stay; what
 * they share is written by one function, ml_perf_json_time.
 */
#ifndef ML_PERF_FIELDS_H
#define ML_PERF_FIELDS_H

#include <stdint.h>

#include "jsonw.h"

/* The time fields by stem.  The first ML_ROLE__COUNT are the step roles in
 * ml_role's order (steps.h), so that a role is its field. */
#define ML_PERF_TIME_FIELDS(X)                                                              \
    X(KERNEL, kernel) X(MEMCPY, memcpy) X(MEMSET, memset) X(COMMUNICATION, communication)   \
    X(RUNTIME, runtime) X(DATALOADER, dataloader) X(CPU_EXEC, cpu_exec) X(OTHER, other)     \
    X(TOTAL, total) X(MEAN, mean) X(MIN, min) X(MAX, max)                                  \
    X(HOST_SELF, host_self) X(HOST_TOTAL, host_total)                                      \
    X(DEVICE_SELF, device_self) X(DEVICE_TOTAL, device_total)                              \
    X(HOST, host) X(DEVICE, device) X(COMPUTATION, computation) X(OVERLAP, overlap)

typedef enum ml_perf_time_field {
#define ML_PERF_FIELD_ENUM(NAME, stem) ML_PT_##NAME,
    ML_PERF_TIME_FIELDS(ML_PERF_FIELD_ENUM)
#undef ML_PERF_FIELD_ENUM
    ML_PT__COUNT
} ml_perf_time_field;

/* A document's unit of time, chosen once for all its time fields. */
typedef enum ml_perf_units { ML_PERF_NS, ML_PERF_US } ml_perf_units;

/* The key "STEM_ns" or "STEM_us" and the time: integer ns, or exact µs
 * (jw_us). */
void ml_perf_json_time(jw *w, ml_perf_units u, ml_perf_time_field f, int64_t ns);
/* An operator's four times (host and device, self and total). */
void ml_perf_json_op_times(jw *w, ml_perf_units u, int64_t host_self, int64_t host_total, int64_t device_self,
                           int64_t device_total);

/* A time in µs exact to the ns ("98598.123"), and a number with at most
 * `digits` decimals (null when < 0 or not finite), as every runs field. */
void ml_perf_json_us(jw *w, const char *key, int64_t ns);
void ml_perf_json_num(jw *w, const char *key, double v, int digits);

/* The step name of the runs array: "5" for "ProfilerStep#5", the name
 * itself for any other, "(whole trace)" for NULL. */
const char *ml_perf_step_label(const char *name);

#endif
