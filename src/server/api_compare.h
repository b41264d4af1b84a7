/*
 * api_compare.h — `memlens serve`'s /api/compare?base=K&new=J: two loaded
 * runs compared as `memlens diff` compares them (analysis/diff.h), answered
 * as the pair object of the page's compare data (web/DATA.md, "Compare").
 * The runs' time sides are analysed for it on each request (the views keep
 * the result); the ranks' profiles are only read, so requests may run at once.
 */
#ifndef ML_SERVER_API_COMPARE_H
#define ML_SERVER_API_COMPARE_H

#include <stddef.h>

#include "report_enc.h"
#include "view.h"

/* {"base_rank": kb, "new_rank": kn, "diff": {...}} appended to out. */
void ml_api_compare(const ml_sv_rank *base, size_t kb, const ml_sv_rank *nw, size_t kn, ml_buf *out);

#endif
