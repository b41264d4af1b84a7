/*
 * cluster_view.h — the data of the Cluster view (web/src/cluster.js): rank x
 * step matrices from the ranks' records, for the report (as typed columns,
 * report_job.c) and for `memlens serve` (/api/cluster, as JSON).
 *
 * The steps are the union of the ranks' ProfilerStep#N numbers, in order
 * (a job's ranks run the same steps); when no rank has one, one step,
 * "(whole trace)".  Per rank and step: its begin (ns from `origin`), its
 * duration, the main device's peak allocated within it, its communication
 * time; -1 where the rank has no such step or figure.
 */
#ifndef ML_CLUSTER_VIEW_H
#define ML_CLUSTER_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster.h"
#include "rankrec.h"
#include "report_enc.h"

typedef struct ml_cluster_matrix {
    size_t n_ranks, n_steps;
    char **labels;              /* n_steps: "18", or "(whole trace)" */
    int64_t *begin, *time, *peak, *comm; /* n_ranks x n_steps, row by row */
    bool any_comm;              /* some rank has communication figures */
} ml_cluster_matrix;

void ml_cluster_matrix_of(ml_rankrec *const *v, size_t n, int64_t origin, ml_cluster_matrix *out);
void ml_cluster_matrix_free(ml_cluster_matrix *m);

/* /api/cluster's answer: {"origin_ns", "steps", "n_ranks", "n_steps",
 * "rank_no" (per row), "slots" (per row: slot[i] of the record's unit, or
 * -1), "step_begin", "step_time", "step_peak", "step_comm" (null without
 * communication), and the cluster object's members}. */
void ml_cluster_view_json(ml_buf *out, ml_rankrec *const *v, size_t n, int64_t origin, const long *slot_of_unit,
                          size_t n_units);

#endif
