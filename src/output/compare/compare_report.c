/*
 * compare_report.c — `memlens diff BASE NEW -o FILE.html`: the report of
 * both runs (every view of each, its ranks the base and new runs of each
 * pair) with the compare object the Compare view reads (compare.h).
 */
#include "compare.h"

#include <math.h>
#include <stdlib.h>

#include "report.h"

/* How much a pair changed: a new run out of memory first, then the largest
 * change of peak allocated on any device. */
static void importance(const ml_diff *d, bool *oom, double *change)
{
    *oom = false, *change = 0;
    for (size_t k = 0; k < d->n_devices; k++) {
        const ml_diff_device *dd = &d->devices[k];
        if (dd->dev[1] >= 0 && dd->st[1].oom_events) *oom = true;
        if (dd->dev[0] < 0 || dd->dev[1] < 0) continue;
        double x = fabs((double)dd->st[1].peak_allocated.value - (double)dd->st[0].peak_allocated.value);
        if (x > *change) *change = x;
    }
}

/* The pairs, most changed first (pair order on a tie). */
static size_t *pair_order(const ml_compare *c)
{
    size_t *order = ml_malloc((c->n ? c->n : 1) * sizeof *order);
    bool *oom = ml_malloc((c->n ? c->n : 1) * sizeof *oom);
    double *change = ml_malloc((c->n ? c->n : 1) * sizeof *change);
    for (size_t i = 0; i < c->n; i++) {
        importance(c->pairs[i], &oom[i], &change[i]);
        size_t j = i; /* insertion, stable */
        while (j > 0 && (oom[i] > oom[order[j - 1]] || (oom[i] == oom[order[j - 1]] && change[i] > change[order[j - 1]])))
            order[j] = order[j - 1], j--;
        order[j] = i;
    }
    free(oom);
    free(change);
    return order;
}

int ml_compare_report_write(const ml_compare *c, int64_t budget, const char *path, FILE *std_out, ml_err *e)
{
    /* The page's ranks: base and new of each pair, in turn (borrowed). */
    ml_profiles ps = {0};
    size_t *rank_of = ml_malloc((2 * c->n + 1) * sizeof *rank_of);
    for (size_t i = 0; i < c->n; i++)
        for (int s = 0; s < 2; s++) {
            rank_of[2 * i + (size_t)s] = ps.items.len;
            VEC_PUSH(&ps.items, (ml_profile *)c->pairs[i]->side[s].p);
        }
    ml_buf page = {0};
    ml_buf_puts(&page, "<script type=\"application/json\" id=\"ml-compare\">");
    ml_compare_page_json(c, rank_of, &page);
    ml_buf_puts(&page, "</script>\n");
    ml_report_opts o = {.inputs = c->input, .n_inputs = 2, .extra_html = page.p, .extra_len = page.len, .no_distributed = true,
                        .std_out = std_out};
    size_t *order = NULL;
    if (c->n > 1) { /* one pair: all of it, as ever */
        order = pair_order(c);
        o.budget = budget > 0 ? budget : ML_REPORT_BUDGET;
        o.unit = 2;
        o.order = order;
    }
    int rc = ml_report_write(&ps, &o, path, e);
    free(order);
    ml_buf_free(&page);
    free(rank_of);
    VEC_FREE(&ps.items); /* the profiles belong to the caller */
    return rc;
}
