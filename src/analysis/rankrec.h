/*
 * rankrec.h — what a job's analyses keep of one rank: a small record.
 *
 * A job of thousands of ranks is read one rank per thread at a time (and,
 * under MPI, on many machines): each rank's record is computed while its
 * events are in memory, and the events are freed.  Everything that spans the
 * ranks (the cluster digests and outliers, cluster.h; the distributed view;
 * the cross-rank tables; the Cluster view's heatmaps) is computed from the
 * records alone, so it is the same whether they came from threads or from
 * MPI processes.
 *
 * A record holds:
 *   - who the rank is: rank, world size, path, format, what it can show
 *     (caps), host;
 *   - its memory: the peak allocated and reserved of each accelerator
 *     device, and of the main device (the accelerator with the highest
 *     peak; cpu when there is none), its out-of-memory events;
 *   - its steps (ProfilerStep#N; from the trace when loaded, else from the
 *     operators' annotations), each with its time, the main device's peak
 *     allocated within it and its allocated bytes at its end, and when the
 *     time side is loaded, its computation, communication and overlap
 *     (distributed.h's figures);
 *   - its collectives (distributed.h), and its communication kernels per
 *     step for the stragglers (stragglers.h: a record whose kernel names
 *     the rank record owns);
 *   - and the pieces of output the command wrote about the rank while it was
 *     loaded (its text section, its JSON objects), kept in a spool
 *     (spool.h), with marks: byte offsets in a piece where a cross-rank
 *     value is pasted in later.
 *
 * Records travel between processes as bytes (ml_rankrec_pack / _unpack):
 * every field, and the pieces' bytes.
 */
#ifndef ML_RANKREC_H
#define ML_RANKREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes.h"
#include "curve.h"
#include "distributed.h"
#include "profile.h"
#include "spool.h"
#include "vec.h"

#define ML_RR_PIECES 6      /* output pieces a command may keep per rank */
#define ML_RR_MARKS 4

typedef struct ml_rr_device {
    char id[32];            /* "cuda:3" */
    int64_t peak_allocated; /* bytes */
    int64_t peak_time;      /* ns, as the summary prints it */
    int64_t peak_reserved;  /* -1: no reserved curve */
    bool time_is_absolute;
} ml_rr_device;

typedef struct ml_rr_step {
    char *name;             /* "ProfilerStep#5", "(whole trace)" */
    int64_t begin_ns, end_ns;
    int64_t peak_bytes;     /* main device: highest allocated within the step, -1 unknown */
    int64_t end_bytes;      /* main device: allocated at the step's end, -1 unknown */
    int64_t comp_ns, comm_ns, overlap_ns, other_ns; /* -1 without the time side */
} ml_rr_step;

typedef struct ml_rr_coll {
    char *name;
    uint64_t calls;
    int64_t bytes, total_ns, mean_ns;
    int group_size;           /* ranks in its process group, -1 if unknown (distributed.h) */
} ml_rr_coll;

typedef struct ml_rankrec {
    size_t unit;            /* the unit it came from (loadpar.h), and its number in it: */
    size_t unit_k;          /* the last keys of the rank order */
    int rank, world_size;   /* -1 if unknown */
    char *path, *format, *host, *backend; /* host, backend: NULL if unknown */
    ml_caps caps;           /* the profile's (profile.h), devkind resolved (ml_devkind_of_profile) */
    int64_t input_bytes;    /* the unit's size on disk, -1 if unknown */
    int64_t first_time_ns;  /* its earliest time (ml_profile_first_time), INT64_MAX if none */
    bool time_is_absolute;
    VEC(ml_rr_device) devices; /* accelerators with an allocated peak, in device order */
    char main_device[32];   /* "" when the rank has no device */
    int main_index;         /* the main device's index ("cuda:3" -> 3), -1 if none */
    int64_t peak_allocated, peak_reserved, total_memory; /* main device; -1 unknown */
    int64_t oom_events;     /* all devices */
    bool has_time;          /* the steps have computation and communication */
    bool any_comm;          /* distributed.h's figures for the join */
    double comp_per_step;
    VEC(ml_rr_step) steps;
    VEC(ml_rr_coll) colls;
    ml_straggler_record strag; /* its kernels' names are owned here */
    char *perf_why;         /* why the rank has no profiler views, NULL if it has them */
    ml_piece piece[ML_RR_PIECES];
    int64_t mark[ML_RR_MARKS];
    uint32_t flags;         /* free for the command's use */
} ml_rankrec;

/* What a job's outputs read of its records; zeroed (or NULL): all of it. */
typedef struct ml_rankrec_wants {
    bool no_stragglers;     /* strag left empty: the job holds one rank, or its
                             * command shows no distributed view */
} ml_rankrec_wants;

/* The record of a loaded profile (a rank's own output pieces are the
 * caller's to add).  `unit`, `k`, `bytes`: where it came from; memo: the
 * caller's peaks of p (curve.h; NULL: none). */
ml_rankrec *ml_rankrec_of(const ml_profile *p, ml_peak_memo *memo, const ml_rankrec_wants *w, size_t unit, size_t k,
                          int64_t bytes);
void ml_rankrec_free(ml_rankrec *r);

/* The order outputs list ranks in: rank (unknown last), path, then unit. */
int ml_rankrec_cmp(const ml_rankrec *a, const ml_rankrec *b);
void ml_rankrecs_sort(ml_rankrec **v, size_t n);

/* The rank's part of the distributed view (its strings are the record's). */
void ml_rankrec_dist_part(const ml_rankrec *r, int rank, ml_dist_part *out);
/* The distributed view of records in rank order (rank: the record's, else
 * its place); NULL when they are not a distributed run.  Free with
 * ml_rankrec_dist_free (its strings are the records'). */
ml_distributed *ml_rankrec_distributed(ml_rankrec *const *v, size_t n);
void ml_rankrec_dist_free(ml_distributed *d);

/* The step number of "ProfilerStep#N" (N >= 0), else -1. */
int64_t ml_step_number(const char *name);

/* A job's records as the outputs see them (cli/job.h gathers them). */
typedef struct ml_rankset {
    ml_rankrec *const *recs;    /* in rank order */
    size_t n;
    ml_spool *spool;            /* their pieces */
    char *const *skipped;       /* "path: why", what the directory walks passed over */
    size_t n_skipped;
} ml_rankset;

/* Records as bytes: appended to out (pieces read from s), and back (pieces
 * put into s).  _unpack returns the bytes used, 0 when they are not a
 * record. */
void ml_rankrec_pack(const ml_rankrec *r, ml_spool *s, ml_bytes *out);
size_t ml_rankrec_unpack(const char *p, size_t n, ml_spool *s, ml_rankrec **out);

#endif
