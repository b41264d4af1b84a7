/*
 * evpipe.h — an importer's events, stored and matched on a second thread.
 *
 * A gigabyte snapshot pushes ~9M events: storing them (400 MB of columns,
 * page faults included) and then walking them again to match allocs with
 * frees (ml_match) is a third of the work, and it needs nothing the parser
 * has.  Through a pipe the importer's thread only parses: it hands events
 * over in batches, and the pipe's thread appends them to p->events and,
 * while they come in time order, matches them into p->allocs as they come
 * (ml_matcher), so that ml_profile_finish() keeps those allocs instead of
 * walking the events again.  Events out of time order (several devices'
 * lists, one after the other) or without times leave the matching to
 * ml_profile_finish() as before; either way the profile ends the same.
 *
 * Until ml_evpipe_end() the pipe's thread owns p->events and p->allocs: the
 * importer touches neither (the rest of the profile stays its own).
 */
#ifndef ML_EVPIPE_H
#define ML_EVPIPE_H

#include <stdbool.h>

#include "profile.h"

typedef struct ml_evpipe ml_evpipe;

/* Starts the pipe's thread for p (without a thread, under MEMLENS_ONE_THREAD
 * or if one cannot be made, the pipe stores and matches on the caller's). */
ml_evpipe *ml_evpipe_start(ml_profile *p);
/* Queues one event, as ml_event_push() would push it. */
void ml_evpipe_push(ml_evpipe *q, const ml_event *ev);
/* Whether the pipe gave up: the profile is lean (p->lean) and an event came
 * out of time order (or without one), so that the allocs cannot be matched as
 * read, nor later from lean events.  The importer stops and reads the input
 * again without lean storage (ML_IMPORT_AGAIN).  Set by the pipe's thread: it
 * may turn true a few batches after the event. */
bool ml_evpipe_failed(const ml_evpipe *q);
/* Waits until every queued event is in p->events and frees q.  With
 * keep_allocs, allocs matched in time order stay in p->allocs with
 * p->allocs_matched set; without (or if the events were out of order),
 * p->allocs is left empty for ml_profile_finish() to match.  NULL is a no-op. */
void ml_evpipe_end(ml_evpipe *q, bool keep_allocs);

#endif
