/*
 * ranks.h — the ranks `memlens serve` offers, imported lazily.
 *
 * Each input is a slot; a directory is listed (ml_list_dir) into one slot
 * per profile found below it, without importing anything.  A slot is
 * imported the first time it is asked for, as a request to the server's
 * loader (loadpar.h: a pool of threads, one per core, at most one per slot
 * and 16), so that several ranks load in parallel and a rank asked for goes
 * before the Cluster pass's background loads queued on the same threads.  A slot that yields more than one profile
 * (an Ascend folder with text and a static graph) adds the others as new
 * slots at the end, so slot numbers never change.  Uploads add slots at the
 * end too (ml_ranks_add); there may be no slot at all until then.
 */
#ifndef ML_SERVER_RANKS_H
#define ML_SERVER_RANKS_H

#include <stddef.h>

#include "cluster_bg.h"
#include "err.h"
#include "loadpar.h"
#include "report_enc.h"
#include "source.h"
#include "view.h"

typedef enum { ML_SLOT_PENDING, ML_SLOT_QUEUED, ML_SLOT_LOADING, ML_SLOT_READY, ML_SLOT_FAILED, ML_SLOT_EVICTED } ml_slot_state;

typedef struct ml_ranks ml_ranks;

/* Lists the inputs (files, "-", directories) into slots and starts the
 * loader's `threads` threads (0 = one per core; one more when a Cluster pass
 * would otherwise have them all).  Fails if an input does not exist or a
 * directory holds no profile. */
ml_ranks *ml_ranks_open(const char *const *inputs, size_t n, int threads, ml_err *e);
/* Stops the workers (a rank being imported is finished first) and frees all. */
void ml_ranks_free(ml_ranks *rs);

size_t ml_ranks_count(ml_ranks *rs);
/* Queues slot k for import unless it is queued, loading or done. */
void ml_ranks_request(ml_ranks *rs, size_t k);
/* The view of slot k, or NULL while it is not loaded (sets *state). */
ml_sv_rank *ml_ranks_get(ml_ranks *rs, size_t k, ml_slot_state *state);
/* Waits up to timeout_ms for slot k to be loaded or to fail; returns its state. */
ml_slot_state ml_ranks_wait(ml_ranks *rs, size_t k, int timeout_ms);

/* Imports path now, as a request to the loader (an upload: the server's
 * connection thread waits for it, so that uploads too load on no more
 * threads than the ranks do), and adds its profiles as loaded slots at the end, with name in
 * the inputs list and as their path (the profiles' and the slots': the
 * server's own paths are never shown); lim (NULL: none) bounds the input
 * (source.h).  Returns the first new slot's number, or -1 with e set
 * (then nothing is added).  Safe alongside the lazy imports. */
long ml_ranks_add(ml_ranks *rs, const char *path, const char *name, const ml_input_limits *lim, ml_err *e);

/* Uploads are bounded: after an upload, while more than keep uploads are
 * held, or their files hold more than keep_bytes on disk, the least recently
 * viewed upload (ml_ranks_get counts as a view; the one added last is never
 * chosen) is evicted: its slots turn ML_SLOT_EVICTED (their status says so
 * and why), its file and folder are removed, and its views are freed once no
 * request is in flight (ml_ranks_enter/leave), since a request may still be
 * reading them.  The evicted slots' numbers go to out as a JSON array
 * ("[3,4]"); returns how many uploads were evicted. */
size_t ml_ranks_evict_uploads(ml_ranks *rs, size_t keep, int64_t keep_bytes, ml_buf *out);
/* A request begins / ends (every request of the server calls both). */
void ml_ranks_enter(ml_ranks *rs);
void ml_ranks_leave(ml_ranks *rs);

/* The distributed view (distributed.h) of the ranks loaded so far: ranks load
 * lazily, so it is computed over the slots that are ready when asked, and
 * computed again when more have loaded since (sets *key to the number of
 * ready slots it covers: the set only grows, so that number names it).
 * NULL when those ranks are not a distributed run.  Each view computed is
 * kept until ml_ranks_free, so a pointer returned stays valid. */
const ml_distributed *ml_ranks_distributed(ml_ranks *rs, size_t *key);

/* The Cluster view of the slots listed at start (cluster_bg.h), being read
 * from the start; NULL with fewer than two. */
ml_sv_cluster *ml_ranks_cluster(ml_ranks *rs);

/* Whether a slot has this path. */
bool ml_ranks_has(ml_ranks *rs, const char *path);
/* The units of a new listing of the inputs (follow.h): those no slot has
 * become pending slots at the end (their input: unit.input), and every
 * slot's place (run, worker, span) becomes its unit's, a new span changing
 * the others' numbers.  Returns the number of slots added. */
size_t ml_ranks_sync(ml_ranks *rs, const ml_unit_list *l);
/* Says in the status that the directories are followed (mode: "inotify",
 * "polling", a static string), or not (NULL). */
void ml_ranks_set_follow(ml_ranks *rs, const char *mode);

/* {"inputs":[...],"skipped":[...],"cluster":true (only when there is one),"follow":"inotify"|"polling"
 * (while followed),"ranks":[{index, path, state, ..., run, worker, span, spans (a logdir's), added}]} */
void ml_ranks_status_json(ml_ranks *rs, ml_buf *out);
/* One slot's status object. */
void ml_ranks_slot_json(ml_ranks *rs, size_t k, ml_buf *out);

#endif
