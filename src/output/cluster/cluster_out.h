/*
 * cluster_out.h — a job's cluster analysis (analysis/cluster.h) for people
 * and programs: the text digest `summary` and `perf` print for a job of
 * many ranks, and the "cluster" object of their --json.
 *
 * The text stays the same size whatever the number of ranks: per metric its
 * min, p50, p90 and max (the ranks of the min and max), the five highest and
 * five lowest ranks, and the outliers (at most ML_CLUSTER_TEXT_OUTLIERS
 * lines, then how many more).  The JSON has every rank:
 *
 *   "cluster": {"ranks": N, "world_size": N, "ranks_per_node": N,
 *     "outlier_rule": "...",
 *     "metrics": {"peak_allocated_bytes": {"ranks", "min", "min_rank", "p50",
 *         "p90", "max", "max_rank", "median", "mad",
 *         "highest": [{"rank", "value"}], "lowest": [...]}, ...},
 *     "per_rank": [{"rank", "path", "device", "steps", "peak_allocated_bytes",
 *         "peak_reserved_bytes", "step_time_us", "compute_time_us",
 *         "communication_time_us", "idle_time_us",
 *         "memory_growth_bytes_per_step", "oom_events"}],
 *     "outliers": [{"rank", "metric", "value", "score", "category", "path"}]}
 *
 * Times are microseconds (exact to the ns), bytes and counts integers, a
 * figure a rank does not have null; "score" is null for oom_events (every
 * rank that ran out of memory is listed), else rounded to 2 decimals.
 */
#ifndef ML_CLUSTER_OUT_H
#define ML_CLUSTER_OUT_H

#include <stdio.h>

#include "cluster.h"
#include "jsonw.h"

#define ML_CLUSTER_TEXT_OUTLIERS 20

/* The digest as text (the caller puts a blank line before it when something
 * came before); what: "summary" or "perf" (the command of one rank's own view). */
void ml_cluster_text(FILE *f, const ml_cluster *c, const char *what);
/* "cluster": {...} (the key and the object). */
void ml_cluster_json(jw *w, const ml_cluster *c);
/* The cluster object's members only ("ranks", "metrics", "per_rank",
 * "outliers"), into an object open in w (the page's cluster data). */
void ml_cluster_json_members(jw *w, const ml_cluster *c);

/* A value of metric m as JSON (µs for times), for other writers. */
void ml_cluster_json_value(jw *w, ml_cluster_metric m, int64_t v);

#endif
