/*
 * compare_report.c — `memlens diff BASE NEW -o FILE.html`: the report of
 * both runs (every view of each, its ranks the base and new runs of each
 * pair) with the compare object the Compare view reads (compare.h).
 */
#include "compare.h"

#include <stdlib.h>

#include "report.h"

int ml_compare_report_write(const ml_compare *c, const char *path, ml_err *e)
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
    ml_report_opts o = {.inputs = c->input, .n_inputs = 2, .extra_html = page.p, .extra_len = page.len, .no_distributed = true};
    int rc = ml_report_write(&ps, &o, path, e);
    ml_buf_free(&page);
    free(rank_of);
    VEC_FREE(&ps.items); /* the profiles belong to the caller */
    return rc;
}
