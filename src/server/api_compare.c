/*
 * api_compare.c — /api/compare (see api_compare.h).
 */
#include "api_compare.h"

#include <stdio.h>
#include <stdlib.h>

#include "compare.h"
#include "diff.h"

void ml_api_compare(const ml_sv_rank *base, size_t kb, const ml_sv_rank *nw, size_t kn, ml_buf *out)
{
    const ml_sv_rank *r[2] = {base, nw};
    ml_perf perf[2];
    ml_stepops ops[2];
    bool has[2];
    ml_diff_side side[2];
    for (int s = 0; s < 2; s++) {
        has[s] = ml_perf_compute(r[s]->p, &perf[s]);
        if (has[s]) ml_stepops_compute(r[s]->p, &ops[s]);
        side[s] = (ml_diff_side){r[s]->p, has[s] ? &perf[s] : NULL, has[s] ? &ops[s] : NULL};
    }
    ml_diff *d = ml_diff_compute(&side[0], &side[1], NULL);
    ml_compare_page_pair(d, kb, kn, out);
    ml_diff_free(d);
    for (int s = 0; s < 2; s++)
        if (has[s]) {
            ml_stepops_free(&ops[s]);
            ml_perf_free(&perf[s]);
        }
}
