/*
 * perf.h — writes the time-side analyses of a rank (analysis/perfdata.h):
 * as text for `memlens perf`, and as the perf object of web/DATA.md
 * ("Profiler views (time side)") for `perf --json`, the report and the
 * server.
 */
#ifndef ML_PERF_H
#define ML_PERF_H

#include <stdio.h>

#include "distributed.h"
#include "jsonw.h"
#include "perfdata.h"
#include "profile.h"

/* Tables are cut to what a person can use: the first top rows of each
 * operator and kernel table (ML_PERF_TOP_DEFAULT unless the command is told
 * otherwise: --top), and what the rest add up to ("others"). */
#define ML_PERF_TOP_DEFAULT 1000
typedef struct ml_rows_rest {
    size_t rows;                /* rows past the cut; 0: nothing was cut */
    int64_t calls, host_self_ns, host_total_ns, device_self_ns, device_total_ns; /* operators */
    int64_t total_ns;           /* kernels */
} ml_rows_rest;
ml_rows_rest ml_op_rows_rest(const ml_op_rows *rows, int top);
ml_rows_rest ml_kernel_rows_rest(const ml_kernel_row *rows, size_t n, int top);

/* The perf object of one rank, from a computed ml_perf.  top > 0 keeps the
 * first top rows of each operator and kernel table (and writes "others");
 * 0 keeps them all.
 * dist: the distributed view of all the ranks loaded with this one
 * (ml_distributed_compute), written whole as "distributed"; NULL writes null. */
void ml_perf_json_write(jw *w, const ml_profile *p, const ml_perf *perf, int top, const ml_distributed *dist);
/* The same with a placeholder (null) for "distributed", written by another
 * writer later: *dist_at gets its offset in w's file (ftell), and
 * ml_perf_json_distributed writes the value that replaces it (a job's ranks
 * are written one at a time, the distributed view once all are read). */
void ml_perf_json_write_at(jw *w, const ml_profile *p, const ml_perf *perf, int top, const ml_distributed *dist,
                           long *dist_at);
void ml_perf_json_distributed(jw *w, const ml_distributed *d);

/* The same, computing the analyses itself; writes null when the profile
 * has no time side (ml_perf_unavailable(p) says why).  "distributed" is
 * this rank's own (from its collectives and steps); callers that hold every
 * rank pass theirs to ml_perf_json_rank_with().  The call the report and
 * the server make. */
void ml_perf_json_rank(jw *w, const ml_profile *p, int top);
void ml_perf_json_rank_with(jw *w, const ml_profile *p, int top, const ml_distributed *dist);

/* The CSV of one table (`memlens export --table`): operators grouped by name
 * or by name and input shape, kernels by name or by name and operator.
 * Times in ns.  Returns 0, or -1 on a write error. */
typedef enum { ML_PERF_TABLE_OPERATORS, ML_PERF_TABLE_KERNELS } ml_perf_table;
typedef enum { ML_PERF_BY_NAME, ML_PERF_BY_SHAPE, ML_PERF_BY_OP } ml_perf_group;
int ml_perf_csv(FILE *f, const ml_profile *p, const ml_perf *perf, ml_perf_table table, ml_perf_group group);

#endif
