/*
 * cluster.h — a job's ranks side by side: digests and outliers, from the
 * ranks' records alone (rankrec.h).
 *
 * Per rank, from its record:
 *   peak_allocated_bytes, peak_reserved_bytes   the main device's peaks
 *   step_time            mean duration of its ProfilerStep#N steps (ns)
 *   compute_time, communication_time, idle_time
 *                        means per step of distributed.h's computation,
 *                        communication and other time (the time side only:
 *                        `perf`, `report`, `serve`)
 *   memory_growth        bytes per step: the least-squares slope of the main
 *                        device's allocated bytes at the end of each step
 *                        over the step's place (two steps or more)
 *   oom_events           out-of-memory events
 *
 * Per metric, over the ranks that have it: min, p50, p90 and max by the
 * nearest-rank method (the value of the ceil(q n)-th smallest: always some
 * rank's), the first rank of the min and of the max, the five highest and
 * the five lowest (ties in rank order), and the median (the mean of the two
 * middle values when n is even) and MAD (the median of |value - median|).
 *
 * An outlier has a robust score (Iglewicz and Hoaglin's modified z-score)
 *     score = 0.6745 (value - median) / max(MAD, floor)
 * above 3.5, on the high side (nothing is an outlier for being small),
 * among at least ML_CLUSTER_MIN_RANKS ranks that have the metric.  The floor
 * keeps ranks that all agree (MAD 0) from making a tiny difference an
 * outlier: 1% of the median for peaks and step time, so that a rank must be
 * about 5% above the median; for the parts of a step (compute,
 * communication, idle), also at least 0.5% of the median step time; for memory growth,
 * 0.05% of the median peak allocated (at least 1 MiB) per step.  Memory growth must also be above 0.
 * Every rank with an out-of-memory event is an outlier of oom_events, with
 * no score.
 *
 * The categories people read: stragglers (step_time, compute_time), memory
 * skew (the peaks), leaks (memory_growth), waiting (communication_time,
 * idle_time), out of memory.
 */
#ifndef ML_CLUSTER_H
#define ML_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rankrec.h"

#define ML_CLUSTER_MIN_RANKS 4
#define ML_CLUSTER_THRESHOLD 3.5
#define ML_CLUSTER_TOP 5

typedef enum {
    ML_CM_PEAK_ALLOCATED,
    ML_CM_PEAK_RESERVED,
    ML_CM_STEP_TIME,
    ML_CM_COMPUTE,
    ML_CM_COMMUNICATION,
    ML_CM_IDLE,
    ML_CM_GROWTH,
    ML_CM_OOM,
    ML_CM__COUNT
} ml_cluster_metric;

typedef enum { ML_UNIT_BYTES, ML_UNIT_NS, ML_UNIT_BYTES_PER_STEP, ML_UNIT_COUNT } ml_cluster_unit;

/* "peak_allocated_bytes", "step_time_us" ... (the --json names; times in µs there). */
const char *ml_cluster_metric_key(ml_cluster_metric m);
/* "peak allocated", "step time" ... */
const char *ml_cluster_metric_label(ml_cluster_metric m);
/* "memory skew", "straggler", "waiting", "leak", "out of memory" */
const char *ml_cluster_metric_category(ml_cluster_metric m);
ml_cluster_unit ml_cluster_metric_unit(ml_cluster_metric m);

typedef struct ml_cluster_rank {
    int rank;               /* the record's rank, -1 if unknown */
    const char *path;       /* the record's */
    const char *device;     /* its main device ("" if none) */
    size_t steps;           /* numbered steps */
    bool has[ML_CM__COUNT];
    int64_t value[ML_CM__COUNT];
} ml_cluster_rank;

typedef struct ml_digest {
    size_t n;               /* ranks with the metric */
    int64_t min, p50, p90, max;
    size_t min_at, max_at;  /* indexes into ml_cluster.ranks */
    double median, mad;
    size_t top[ML_CLUSTER_TOP], bottom[ML_CLUSTER_TOP];
    size_t n_top;           /* entries in top and in bottom: min(n, 5) */
} ml_digest;

typedef struct ml_outlier {
    size_t at;              /* index into ml_cluster.ranks */
    ml_cluster_metric metric;
    int64_t value;
    bool scored;            /* false for oom_events */
    double score;
} ml_outlier;

typedef struct ml_cluster {
    size_t n;
    ml_cluster_rank *ranks; /* in the records' order */
    ml_digest digest[ML_CM__COUNT];
    ml_outlier *outliers;   /* by metric, then score (highest first), then rank order */
    size_t n_outliers;
    int world_size;         /* the largest a rank says, else the number of ranks */
    int ranks_per_node;     /* the highest main device index + 1 (cuda:7 -> 8), at least 1 */
    bool has_time;          /* some rank has the time side */
} ml_cluster;

/* The cluster of records in rank order (ml_rankrecs_sort).  It points into
 * the records: they must outlive it. */
ml_cluster *ml_cluster_compute(ml_rankrec *const *v, size_t n);

/* Whether the records are the ranks of one job, which a cluster describes:
 * two or more, each with its rank number (distributedInfo, an Ascend
 * rank), no number twice, one world size for all (or none known).  Inputs
 * given together that are not (two unrelated traces) are no 2-rank job.
 * false: why (when not NULL) says so in a line. */
bool ml_cluster_is_job(ml_rankrec *const *v, size_t n, char *why, size_t cap);
void ml_cluster_free(ml_cluster *c);

/* The digest and the outliers of values alone (tests: worked out by hand). */
void ml_digest_of(const ml_cluster_rank *ranks, size_t n, ml_cluster_metric m, ml_digest *out);
/* The robust score of v against a digest (0.6745 (v - median) / max(MAD, floor)). */
double ml_cluster_score(const ml_digest *d, double floor, int64_t v);

#endif
