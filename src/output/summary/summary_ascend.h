/*
 * summary_ascend.h — the parts of `memlens summary` for inputs with sampled
 * components (Ascend: PTA, GE, PTA+GE, APP, driver modules), static graphs,
 * and the cross-rank table when several ranks are loaded.  Called from
 * summary.c; the JSON functions only add keys to the issue-3 schema.
 */
#ifndef ML_SUMMARY_ASCEND_H
#define ML_SUMMARY_ASCEND_H

#include <stdio.h>

#include "jsonw.h"
#include "profile.h"
#include "rankrec.h"
#include "summary_opts.h"

/* Components under this peak are hidden from the text table unless --all. */
#define ML_SMALL_COMPONENT (100LL << 20)

/* Parses "overall", "stream", "component" for --group-by; -1 if unknown. */
int ml_curves_by_parse(const char *s);
const char *ml_curves_by_name(int curves_by);

/* Extra lines / keys for one device of p (nothing for inputs without components). */
void ml_summary_ascend_text(FILE *f, const ml_profile *p, int device, const ml_summary_opts *o);
void ml_summary_ascend_json(jw *w, const ml_profile *p, int device, const ml_summary_opts *o);

/* The cross-rank table (peak per rank and accelerator device, highest,
 * spread), from the ranks' records; only when more than one rank has an
 * accelerator peak.  The JSON is the top-level key "ranks". */
void ml_summary_ranks_text(FILE *f, const ml_rankset *rs, const ml_summary_opts *o);
void ml_summary_ranks_json(jw *w, const ml_rankset *rs, const ml_summary_opts *o);

#endif
