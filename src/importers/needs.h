/*
 * needs.h — what a command reads of the profiles it loads, so that the
 * loader stores and computes no more.
 *
 * Each command builds its needs in one place and hands them to the loader
 * (ml_profiles.needs); the loader turns them into what each import keeps
 * (model/keep.h) and into the preparation after import (ml_prepare:
 * attribution, categories).  Importers never see the needs, and the profile
 * does not store them.  The zero value is the whole memory side without the
 * time side: what a test or a library caller gets from {0}.
 */
#ifndef ML_NEEDS_H
#define ML_NEEDS_H

#include <stdbool.h>

typedef struct ml_needs {
    bool time;          /* the time side: p->trace (slices, flows, counters) */
    bool no_categories; /* shows no memory categories: ml_categorize() is not run (allocations
                         * stay Unknown), e.g. the plain-text summary */
    bool no_op_memory;  /* attributes no memory to operators (perf, whose operators come from the
                         * trace): ml_attribute() is not run, and the memory side may keep only the
                         * first operator, the one the clock is read from */
    bool lean;          /* reads of events only their time, size, aux, device and kind (and their
                         * threads, for ml_categorize, unless no_categories), and of allocs
                         * neither t_free_req, addr (but for those never freed), thread (where the
                         * input has none) nor stream (summary, --json too): an import of a file
                         * that can be read again may store less (keep.h) */
    bool no_op_shapes;  /* shows no operator's input shapes or types ("Input Dims", "Input type":
                         * perf's text grouped by name): an importer may leave them unread, but
                         * on the ops whose shapes the distributed view reads (trace.h,
                         * ml_op_is_collective) */
    bool no_op_order;   /* reads no op's "Sequence number" or "Fwd thread id" (only the trace's
                         * export and the served trace show them): an importer may leave them
                         * unread, and an op with no other args then needs no op_info row */
} ml_needs;

/* What a rank's record (analysis/rankrec.h: steps, collectives, memory
 * peaks) reads of its rank: the report's and the served cluster view's first
 * pass over a job, so that both make the same records. */
#define ML_NEEDS_RANK_RECORD \
    ((ml_needs){.time = true, .no_categories = true, .no_op_memory = true, .no_op_shapes = true})

#endif
