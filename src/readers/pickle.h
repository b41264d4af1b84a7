/*
 * pickle.h — a safe reader of Python pickles made of plain values.
 *
 * PyTorch writes CUDA allocator snapshots with pickle.dump (protocols 2..5):
 * dicts, lists, tuples, str, int, float, bool, None, shared through the memo.
 * This reader runs the pickle machine for exactly those opcodes and refuses
 * every opcode that names or calls code (GLOBAL, STACK_GLOBAL, REDUCE, BUILD,
 * INST, OBJ, NEWOBJ, NEWOBJ_EX, PERSID, BINPERSID, EXT1/2/4) and out-of-band
 * buffers: memlens never imports or executes anything a file names.
 *
 * Values land in an ml_pvs store (pyvalue.h); memo references share, never
 * copy.  For inputs of gigabytes the caller can stream: the append hook (or
 * the record hook, which gets a dict's keys and values, as early as SETITEMS
 * completes it) sees each dict that goes into a list and may take it (the
 * reader then drops it), so a trace of millions of entries never sits in
 * memory as a tree.  (Only dicts are offered: the hooks are for records.)
 * The list hook sees each list that one APPENDS fills with EXT values only
 * (values the caller converted before, e.g. a frame list of known frames) and
 * may stand one EXT number for the whole list: the list is never stored.
 *
 * Hostile input (truncation, huge lengths, memo indices far beyond the input,
 * unbalanced marks, deep stacks) fails with one line naming the byte offset.
 */
#ifndef ML_PICKLE_H
#define ML_PICKLE_H

#include <stddef.h>

#include "err.h"
#include "pyvalue.h"
#include "source.h"

/* Called for each dict appended to a list (APPEND, APPENDS).  Returns 1 if it
 * took the item (the reader drops it from the store and the list stays
 * without it), 0 to let the list keep it, -1 to stop with the error in e. */
typedef int (*ml_append_hook)(void *user, ml_pvs *st, ml_pv list, ml_pv item, ml_err *e);

/* Called for each dict that goes into a list, with its keys and values
 * (kv[0], kv[1], ... n pairs): when APPEND or APPENDS appends it, or as soon
 * as SETITEMS completes it if it waits in a list's APPENDS batch, with the
 * pairs straight from the reader's stack (the dict is then never filled).
 * Returns 1 if it took the dict (the list will not hold it), 0 to let the
 * list keep it, -1 to stop with the error in e.  Used instead of an
 * ml_append_hook. */
typedef int (*ml_record_hook)(void *user, ml_pvs *st, ml_pv list, const ml_pv *kv, size_t n, ml_err *e);

/* Called when APPENDS fills an empty list with fewer than 1000 items (so the
 * whole list: pickle.dump appends in batches of 1000), all of them EXT values.
 * Returns the EXT number that stands for the list from now on (in the memo
 * and where the list was), or -1 to keep the list as it is.  It must depend
 * on the items alone: for a list written with the same memo references as
 * one before, the reader reuses the number without calling it again. */
typedef int64_t (*ml_list_hook)(void *user, const ml_pv *items, size_t n);

/* Called when BINGET or DUP pushes a container a second time (a value shared
 * through the memo): a caller that would expand shared values (N references
 * to a list of M dicts cost N*M to walk, from a few bytes of pickle) refuses
 * those it never expects shared.  Returns 0 to go on, -1 to stop with the
 * error in e (the reader prefixes the name and byte offset). */
typedef int (*ml_shared_hook)(void *user, const ml_pvs *st, ml_pv container, ml_err *e);

typedef struct ml_pickle_hooks {
    ml_append_hook append;      /* may be NULL */
    ml_record_hook record;      /* may be NULL; if set, append is not used */
    ml_list_hook list;          /* may be NULL */
    ml_shared_hook shared;      /* may be NULL */
    void *user;
} ml_pickle_hooks;

/* Reads one pickle from src into st; *out is the value STOP returns.
 * Errors: "name: byte N: ...". */
int ml_pickle_read(ml_source *src, ml_pvs *st, ml_append_hook hook, void *user, ml_pv *out, ml_err *e);
/* The same with any of the hooks. */
int ml_pickle_read_hooks(ml_source *src, ml_pvs *st, const ml_pickle_hooks *hooks, ml_pv *out, ml_err *e);

/* Whether the first bytes look like a pickle (for sniffing): 2 for one of
 * protocol 2..5, 1 for one this reader refuses with its own message (another
 * protocol number, or protocol 0 or 1, which has no PROTO opcode), else 0. */
int ml_pickle_sniff(const unsigned char *head, size_t n);

#endif
