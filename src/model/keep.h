/*
 * keep.h — what an importer is asked to keep of its input, in the model's
 * terms: the import context.
 *
 * The loader (importers/load.c) derives it from what the command needs
 * (importers/needs.h) and from the input (lean storage only for a file that
 * can be read again); importers and ml_profile_finish() ask it questions.
 * It lives for one import and is never stored in the profile: the profile
 * keeps only what it holds (p->lean).  The zero value, and a NULL pointer,
 * keep everything.
 */
#ifndef ML_KEEP_H
#define ML_KEEP_H

#include <stdbool.h>

#include "trace.h" /* ml_op_is_collective */

typedef struct ml_keep {
    bool lean;           /* the reader wants of the memory side only what lean storage holds
                          * (profile.h, p->lean), and the input can be read again: an importer
                          * may store it lean (the snapshot importer, while it matches as it
                          * reads) and drop a sampled point that repeats the one before it
                          * (ml_series_push_sampled); ml_profile_finish() drops the events'
                          * addr, stack and stream once the allocs are matched.  An importer
                          * whose lean storage cannot hold the input answers ML_IMPORT_AGAIN */
    bool threads_unread; /* with lean: nothing reads the events' threads once the allocs are
                          * matched either (no categories, which read them at frees) */
    bool first_op_only;  /* nothing reads operators but the first, the one the clock is read
                          * from (the operators come from the trace instead): an importer may
                          * keep only that one */
    bool no_op_shapes;   /* nothing reads operators' input shapes and types but the distributed
                          * view, of its collectives' ops (ml_keep_op_shapes): an importer may
                          * leave the others unread */
    bool no_op_order;    /* nothing reads operators' "Sequence number" or "Fwd thread id": an
                          * importer may store them as absent (-1) */
} ml_keep;

/* The questions, with NULL for "keep everything". */
static inline bool ml_keep_lean(const ml_keep *k) { return k && k->lean; }
static inline bool ml_keep_event_threads(const ml_keep *k) { return !k || !k->lean || !k->threads_unread; }
static inline bool ml_keep_every_op(const ml_keep *k) { return !k || !k->first_op_only; }
/* Whether the input shapes and types of an op named `name` (NUL-terminated) are read. */
static inline bool ml_keep_op_shapes(const ml_keep *k, const char *name)
{
    return !k || !k->no_op_shapes || ml_op_is_collective(name);
}

#endif
