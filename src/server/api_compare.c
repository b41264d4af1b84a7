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
    ml_diff_time t[2];
    ml_diff_side side[2];
    for (int s = 0; s < 2; s++) {
        bool has = ml_diff_time_compute(r[s]->p, &t[s]);
        side[s] = (ml_diff_side){r[s]->p, has ? &t[s] : NULL};
    }
    ml_diff *d = ml_diff_compute(&side[0], &side[1], NULL);
    ml_compare_page_pair(d, kb, kn, out);
    ml_diff_free(d);
    for (int s = 0; s < 2; s++) ml_diff_time_free(&t[s]);
}
