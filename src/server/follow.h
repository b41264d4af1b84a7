/*
 * follow.h — `memlens serve DIR` beside a training job: files that appear
 * under the served directories, or grow and then settle, become new ranks
 * (new runs or spans of a TensorBoard logdir) without a restart.
 *
 * A thread lists the directories again (ml_units_list, the listing the
 * server started from) when inotify says something changed below them, or
 * every interval where inotify is absent (or the watch limit is reached),
 * and hands ml_ranks_sync the units whose size and modification time have
 * not changed since the listing before and are at least `settle_ms` old:
 * a trace still being written is not read half-way.
 */
#ifndef ML_SERVER_FOLLOW_H
#define ML_SERVER_FOLLOW_H

#include <stddef.h>

#include "ranks.h"

typedef struct ml_follow ml_follow;

typedef struct ml_follow_opts {
    int interval_ms;        /* polling: between listings; 0: 2000 */
    int settle_ms;          /* a file this long unchanged is whole; 0: 1000 */
    int no_inotify;         /* poll even where inotify works (tests) */
} ml_follow_opts;

/* Follows the directories among inputs for rs; NULL when none is one
 * (nothing to follow).  rs must outlive it. */
ml_follow *ml_follow_start(ml_ranks *rs, const char *const *inputs, size_t n, const ml_follow_opts *o);
/* "inotify" or "polling". */
const char *ml_follow_mode(const ml_follow *f);
/* Stops the thread (a listing under way is finished first) and frees it. */
void ml_follow_stop(ml_follow *f);

#endif
