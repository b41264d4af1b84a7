/*
 * perf_fields.h — how the perf JSON writes its field kinds, chosen once for
 * every writer of it (perf_runs.c, perf_hta.c): times as exact µs, ratios
 * with bounded decimals, steps by their label.
 */
#ifndef ML_PERF_FIELDS_H
#define ML_PERF_FIELDS_H

#include <stdint.h>

#include "jsonw.h"

/* A time in µs exact to the ns ("98598.123"), and a number with at most
 * `digits` decimals (null when < 0 or not finite), as every runs field. */
void ml_perf_json_us(jw *w, const char *key, int64_t ns);
void ml_perf_json_num(jw *w, const char *key, double v, int digits);

/* The step name of the runs array: "5" for "ProfilerStep#5", the name
 * itself for any other, "(whole trace)" for NULL. */
const char *ml_perf_step_label(const char *name);

#endif
