/*
 * cluster_bg.h — the Cluster view of `memlens serve`: every rank of the
 * job read once, in the background from the server's start, for its record
 * (rankrec.h), as background loads on the server's loader (loadpar.h), so
 * that a rank the user opens (loaded whole, ranks.h) goes before them.  /api/cluster answers the view's data once all are
 * read (cluster_view.h), and until then how far it got.
 */
#ifndef ML_SERVER_CLUSTER_BG_H
#define ML_SERVER_CLUSTER_BG_H

#include <stdbool.h>

#include "loadpar.h"
#include "report_enc.h"

typedef struct ml_sv_cluster ml_sv_cluster;

/* Starts reading the units (copied; unit u is slot u of the server) on ld,
 * which must outlive it. */
ml_sv_cluster *ml_sv_cluster_start(const ml_unit_list *units, ml_loader *ld);
/* One that reads nothing: the inputs are known from the start to be no job
 * (their heads, headrank.h); /api/cluster answers 422 with why. */
ml_sv_cluster *ml_sv_cluster_refused(const char *why);
/* Whether it is known to have no view (refused, or the ranks read are no
 * job, or one failed to load): /api/meta then says "cluster" no more. */
bool ml_sv_cluster_failed(ml_sv_cluster *c);
/* Stops it (no more ranks begun; the ones being read are finished) and frees it. */
void ml_sv_cluster_free(ml_sv_cluster *c);
/* Waits up to wait_ms for it; returns 200 with the view's JSON in out, 202
 * with {"state":"reading","done":N,"total":N}, or 422 with {"error":...}. */
int ml_sv_cluster_json(ml_sv_cluster *c, int wait_ms, ml_buf *out);

#endif
