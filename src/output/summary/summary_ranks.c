/*
 * summary_ranks.c — the summary's cross-rank table: the peak of every
 * accelerator device of every rank, the highest and the spread, from the
 * ranks' records (host `cpu` memory, a few bytes of a Kineto trace, is not
 * what ranks are compared on).  See summary_ascend.h.
 */
#include <stdlib.h>

#include "format.h"
#include "summary.h"
#include "summary_ascend.h"

typedef struct rank_row {
    const ml_rankrec *r;
    const ml_rr_device *d;
} rank_row;

/* The (rank, device) rows, when there are two or more to compare (else 0
 * and nothing to free). */
static size_t rank_rows(const ml_rankset *rs, rank_row **out)
{
    VEC(rank_row) rows = {0};
    for (size_t i = 0; i < rs->n; i++)
        for (size_t d = 0; d < rs->recs[i]->devices.len; d++)
            VEC_PUSH(&rows, ((rank_row){rs->recs[i], &rs->recs[i]->devices.v[d]}));
    if (rows.len < 2) {
        VEC_FREE(&rows);
        *out = NULL;
        return 0;
    }
    *out = rows.v;
    return rows.len;
}

/* Index of the highest peak (first in rank order on ties), min and max. */
static size_t highest(const rank_row *rows, size_t n, int64_t *min, int64_t *max)
{
    size_t best = 0;
    *min = rows[0].d->peak_allocated;
    for (size_t i = 1; i < n; i++) {
        if (rows[i].d->peak_allocated > rows[best].d->peak_allocated) best = i;
        if (rows[i].d->peak_allocated < *min) *min = rows[i].d->peak_allocated;
    }
    *max = rows[best].d->peak_allocated;
    return best;
}

void ml_summary_ranks_text(FILE *f, const ml_rankset *rs, const ml_summary_opts *o)
{
    (void)o;
    if (rs->n < 2) return;
    rank_row *rows;
    size_t n = rank_rows(rs, &rows);
    if (!n) return;
    char a[32], b[32], c[48];
    fprintf(f, "\nranks: peak allocated per rank and device\n");
    fprintf(f, "    rank  device      peak allocated   peak reserved  at\n");
    for (size_t i = 0; i < n; i++) {
        char rk[16];
        if (rows[i].r->rank >= 0) snprintf(rk, sizeof rk, "%d", rows[i].r->rank);
        else snprintf(rk, sizeof rk, "?");
        const ml_rr_device *d = rows[i].d;
        fprintf(f, "    %4s  %-10s %15s %15s  %s\n", rk, d->id, ml_fmt_bytes(d->peak_allocated, a, sizeof a),
                d->peak_reserved >= 0 ? ml_fmt_bytes(d->peak_reserved, b, sizeof b) : "-",
                ml_fmt_time(d->peak_time, d->time_is_absolute, c, sizeof c));
    }
    int64_t mn, mx;
    size_t h = highest(rows, n, &mn, &mx);
    fprintf(f, "  highest: rank %d %s (%s); spread (highest - lowest) %s = %.2f%% of the highest\n", rows[h].r->rank,
            rows[h].d->id, ml_fmt_bytes(mx, a, sizeof a), ml_fmt_bytes(mx - mn, b, sizeof b),
            mx > 0 ? 100.0 * (double)(mx - mn) / (double)mx : 0.0);
    free(rows);
}

void ml_summary_ranks_json(jw *w, const ml_rankset *rs, const ml_summary_opts *o)
{
    (void)o;
    if (rs->n < 2) return;
    rank_row *rows;
    size_t n = rank_rows(rs, &rows);
    if (!n) return;
    int64_t mn, mx;
    size_t h = highest(rows, n, &mn, &mx);
    jw_key(w, "ranks");
    jw_obj(w);
    jw_key(w, "peaks");
    jw_arr(w);
    for (size_t i = 0; i < n; i++) {
        const ml_rr_device *d = rows[i].d;
        jw_obj(w);
        jw_key(w, "rank");
        if (rows[i].r->rank >= 0) jw_i64(w, rows[i].r->rank); else jw_null(w);
        jw_key(w, "id"); jw_str(w, d->id);
        jw_key(w, "peak_allocated_bytes"); jw_i64(w, d->peak_allocated);
        jw_key(w, "peak_allocated_time_ns"); jw_i64(w, d->peak_time);
        jw_key(w, "peak_reserved_bytes");
        if (d->peak_reserved >= 0) jw_i64(w, d->peak_reserved); else jw_null(w);
        jw_end(w);
    }
    jw_end(w);
    jw_key(w, "highest_rank");
    if (rows[h].r->rank >= 0) jw_i64(w, rows[h].r->rank); else jw_null(w);
    jw_key(w, "highest_id"); jw_str(w, rows[h].d->id);
    jw_key(w, "spread_bytes"); jw_i64(w, mx - mn);
    jw_end(w);
    free(rows);
}
