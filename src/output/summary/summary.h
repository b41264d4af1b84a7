/*
 * summary.h — `memlens summary`: per rank and device, the peaks, counts and
 * what was live at the peak, as text for people or as JSON (--json) for
 * programs.  The JSON schema is stable: later features only add keys.
 */
#ifndef ML_SUMMARY_H
#define ML_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "breakdown.h"
#include "importer.h"
#include "jsonw.h"
#include "rankrec.h"
#include "summary_opts.h"

#define MEMLENS_VERSION "0.1.0"

/* A job's ranks are summarised one at a time, while each is loaded: its
 * pieces (its text section; its "inputs" and "devices" elements) go to the
 * spool, and the summary of the job is written from the records (cli/job.h):
 * the ranks in rank order, then what spans them (the cross-rank table, the
 * cluster digest).  With more than ML_SUMMARY_DETAIL_RANKS ranks the text
 * has the cluster digest instead of each rank's section (--all: both);
 * --json has every rank, and "cluster" for two ranks or more. */
#define ML_SUMMARY_DETAIL_RANKS 8
enum { ML_SUMMARY_PIECE_TEXT, ML_SUMMARY_PIECE_INPUT, ML_SUMMARY_PIECE_DEVICES };

/* memo: the peaks of p found so far (curve.h; the job runner's, which made r
 * through it), or NULL. */
void ml_summary_rank_pieces(const ml_profile *p, ml_peak_memo *memo, ml_rankrec *r, ml_spool *s,
                            const ml_summary_opts *o);
void ml_summary_text(FILE *f, const ml_rankset *rs, const ml_summary_opts *o);
void ml_summary_json(FILE *f, const ml_rankset *rs, const ml_summary_opts *o);

/* One profile's parts (the pieces above). */
void ml_summary_rank_text(FILE *f, const ml_profile *p, ml_peak_memo *memo, const ml_summary_opts *o);
void ml_summary_rank_json_input(jw *w, const ml_profile *p);
void ml_summary_rank_json_devices(jw *w, const ml_profile *p, ml_peak_memo *memo, const ml_summary_opts *o);

#endif
