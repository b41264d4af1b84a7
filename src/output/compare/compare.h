/*
 * compare.h — two runs compared (analysis/diff.h), written out: as text for
 * `memlens diff`, as its --json (schema in the README, "memlens diff"), and
 * as the compare object the report's and the server's Compare view read
 * (web/DATA.md, "Compare").
 */
#ifndef ML_COMPARE_H
#define ML_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diff.h"
#include "err.h"
#include "jsonw.h"
#include "report_enc.h"

/* A comparison: the two inputs, the rank pairs compared, the ranks only
 * one input has. */
typedef struct ml_compare {
    const char *input[2];
    ml_diff *const *pairs;
    size_t n;
    const char *const *unmatched;
    size_t n_unmatched;
} ml_compare;

typedef struct ml_compare_opts {
    int top;                /* text: rows per table (0: 10); --json: 0 = every row */
    int width;              /* text: terminal columns (0: unlimited) */
} ml_compare_opts;

/* `memlens diff` text and --json are written a pair at a time: each pair's
 * piece on its own (a job's pairs are compared one at a time on every core,
 * cli/runpair_each.c, and freed), then the document put together byte for
 * byte as one writer would write it. */

/* One pair's text section (what follows a job's "== rank N" line). */
void ml_compare_pair_text(FILE *f, const ml_diff *d, const ml_compare_opts *o);
/* One pair's object (an element of "pairs"); a piece of the --json document
 * when w was begun with jw_init_in(w, f, true, 2, false). */
void ml_compare_pair_json(jw *w, const ml_diff *d, const ml_compare_opts *o);

typedef struct ml_compare_piece {
    int rank;               /* the base run's rank, for "== rank N" */
    char *text;             /* the pair's section, or its --json element */
    size_t len;
} ml_compare_piece;

/* The document of the pieces, in pair order. */
typedef struct ml_compare_doc {
    const char *input[2];
    const ml_compare_piece *pieces;
    size_t n;
    const char *const *unmatched;
    size_t n_unmatched;
} ml_compare_doc;

void ml_compare_text(FILE *f, const ml_compare_doc *c);
void ml_compare_json(FILE *f, const ml_compare_doc *c);

/* The page's compare object (web/DATA.md "Compare") for the pairs of c, whose
 * runs are the page's ranks rank_of[2 * i] (base) and rank_of[2 * i + 1]
 * (new), appended to out as JSON that can sit in a <script> element. */
void ml_compare_page_json(const ml_compare *c, const size_t *rank_of, ml_buf *out);
/* One element of its "pairs": {"base_rank", "new_rank", "diff"} (the server's /api/compare). */
void ml_compare_page_pair(const ml_diff *d, size_t base_rank, size_t new_rank, ml_buf *out);

/* `memlens diff -o FILE.html`: the report of the pairs' runs (ranks base0,
 * new0, base1, ...) with the compare object.  Several pairs: within budget
 * bytes (0: ML_REPORT_BUDGET), the pairs that changed most embedded whole
 * first (a new run out of memory, then the largest change of peak
 * allocated), the others summarised; the compare object has every pair.
 * Written atomically; -1 with e set on failure. */
int ml_compare_report_write(const ml_compare *c, int64_t budget, const char *path, FILE *std_out, ml_err *e);


#endif
