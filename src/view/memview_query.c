/*
 * memview_query.c — the memory view's queries (memview.h "queries", "the
 * curves' windows"): the allocations a window draws, the table's sort
 * orders, filter and page, Ascend's totals at an allocation, and what a
 * window draws of the curves and the category chart.  Pure functions of the
 * view's columns and curves (and the index they build), so that any number
 * of threads may ask at once; the server formats what they return
 * (server/api.c).
 */
#include "memview.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "categories.h"
#include "report.h"
#include "search.h"
#include "textmatch.h"

/* ---- sorting ------------------------------------------------------------ */

/* Stable order of ids by an unsigned 64-bit key: LSD radix, 16-bit digits,
 * skipping digits that are the same for all. */
static void radix_order(const uint64_t *key, size_t n, uint32_t *order)
{
    uint32_t *tmp = ml_malloc((n ? n : 1) * sizeof *tmp);
    size_t *cnt = ml_malloc(65536 * sizeof *cnt);
    for (size_t i = 0; i < n; i++) order[i] = (uint32_t)i;
    uint64_t all_or = 0, all_and = ~0ull;
    for (size_t i = 0; i < n; i++) { all_or |= key[i]; all_and &= key[i]; }
    for (int shift = 0; shift < 64; shift += 16) {
        if ((((all_or ^ all_and) >> shift) & 0xffff) == 0) continue;
        memset(cnt, 0, 65536 * sizeof *cnt);
        for (size_t i = 0; i < n; i++) cnt[(key[order[i]] >> shift) & 0xffff]++;
        size_t sum = 0;
        for (size_t d = 0; d < 65536; d++) { size_t c = cnt[d]; cnt[d] = sum; sum += c; }
        for (size_t i = 0; i < n; i++) tmp[cnt[(key[order[i]] >> shift) & 0xffff]++] = order[i];
        memcpy(order, tmp, n * sizeof *order);
    }
    free(cnt);
    free(tmp);
}

/* A signed value as a key that sorts as it does. */
static uint64_t i64_key(int64_t v) { return (uint64_t)v ^ 0x8000000000000000ull; }

/* Rank of each label in byte order, so that names sort as numbers. */
static uint32_t *name_ranks(const char *const *names, size_t n)
{
    uint32_t *order = ml_malloc((n ? n : 1) * sizeof *order), *rank = ml_malloc((n ? n : 1) * sizeof *rank);
    for (size_t i = 0; i < n; i++) order[i] = (uint32_t)i;
    /* insertion into a sorted list is fine for the few thousand names a rank has */
    for (size_t i = 1; i < n; i++) {
        uint32_t v = order[i];
        size_t j = i;
        while (j > 0 && strcmp(names[order[j - 1]], names[v]) > 0) { order[j] = order[j - 1]; j--; }
        order[j] = v;
    }
    for (size_t i = 0; i < n; i++) rank[order[i]] = (uint32_t)i;
    free(order);
    return rank;
}

uint32_t ml_mv_cat_rank(unsigned cat)
{
    for (uint32_t j = 0; j < ML_CAT__COUNT; j++)
        if (ml_category_order[j] == cat) return j;
    return ML_CAT__COUNT;
}

/* ---- Ascend's totals ---------------------------------------------------- */

void ml_memview_totals(const ml_memview *v, ml_mv_totals *tc)
{
    static const char *const kinds[] = {"allocated", "reserved", "active"}, *const comps[] = {"PTA", "GE"};
    for (int k = 0; k < 3; k++) {
        tc->overall[k] = tc->comp[0][k] = tc->comp[1][k] = -1;
        for (size_t c = v->curves.len; c-- > 0;) {
            const ml_mv_curve *cv = &v->curves.v[c];
            if (strcmp(cv->kind, kinds[k])) continue;
            if (!strcmp(cv->group, "overall")) tc->overall[k] = (int)c; /* the first, as the page */
            for (int o = 0; o < 2 && !strcmp(cv->group, "component"); o++) {
                char plain[48], insight[48]; /* the writer's names (report.h), not a module's curve */
                ml_report_curve_label(plain, sizeof plain, false, kinds[k], comps[o], NULL);
                ml_report_curve_label(insight, sizeof insight, true, kinds[k], comps[o], NULL);
                if (cv->of && !strcmp(cv->of, comps[o]) && (!strcmp(cv->label, plain) || !strcmp(cv->label, insight)))
                    tc->comp[o][k] = (int)c;
            }
        }
    }
}

int64_t ml_memview_total_at(const ml_memview *v, const ml_mv_totals *tc, const ml_mv_names *names, int k, int rel,
                            uint32_t i)
{
    int c = tc->comp[strncmp(names->s[v->op[i]], "cann::", 6) ? 0 : 1][k];
    if (c < 0) c = tc->overall[k];
    if (c < 0 || (rel && v->flags[i] & ML_MV_NEVER_FREED)) return -1;
    const ml_mv_curve *cv = &v->curves.v[c];
    size_t j = ml_upper_bound_i64(cv->t, cv->n, rel ? v->tf[i] : v->ta[i]);
    return j ? cv->v[j - 1] : -1;
}

uint32_t *ml_memview_order(const ml_memview *v, const ml_mv_names *names, const ml_mv_totals *tc, ml_mv_sort key)
{
    size_t n = v->n, ngroups = v->group_label.len;
    uint64_t *k = ml_malloc((n ? n : 1) * sizeof *k);
    uint32_t *rank = NULL;
    if (key == ML_MV_SORT_GROUP) rank = name_ranks(v->group_label.v, ngroups);
    else if (key == ML_MV_SORT_OP || key == ML_MV_SORT_STREAM) rank = name_ranks(names->s, names->n);
    uint32_t reason_rank[ML_REASON__COUNT];
    if (key == ML_MV_SORT_REASON) { /* by the reason's text, as the page shows it */
        const char *texts[ML_REASON__COUNT];
        for (int r = 0; r < ML_REASON__COUNT; r++) texts[r] = ml_category_reason_text(r);
        uint32_t *rr = name_ranks(texts, ML_REASON__COUNT);
        memcpy(reason_rank, rr, sizeof reason_rank);
        free(rr);
    }
    for (size_t i = 0; i < n; i++) {
        switch (key) {
        case ML_MV_SORT_GROUP: k[i] = v->group[i] < ngroups ? rank[v->group[i]] : 0; break;
        case ML_MV_SORT_OP: k[i] = v->op[i] < names->n ? rank[v->op[i]] : 0; break;
        case ML_MV_SORT_STREAM: k[i] = v->stream[i] < names->n ? rank[v->stream[i]] : 0; break;
        case ML_MV_SORT_SIZE: k[i] = i64_key(v->size[i]); break;
        case ML_MV_SORT_TA: k[i] = i64_key(v->ta[i]); break;
        case ML_MV_SORT_TF: k[i] = i64_key(v->tf[i]); break;
        case ML_MV_SORT_DUR: k[i] = i64_key(v->tf[i] - v->ta[i]); break;
        case ML_MV_SORT_CAT: k[i] = ml_mv_cat_rank(v->cat[i]); break;
        case ML_MV_SORT_REASON:
            k[i] = v->reason ? reason_rank[v->reason[i] < ML_REASON__COUNT ? v->reason[i] : 0] : 0;
            break;
        /* Ascend: as the page, an unknown value sorts as 0 */
        case ML_MV_SORT_TR: k[i] = i64_key(v->tr ? v->tr[i] : 0); break;
        case ML_MV_SORT_ADUR: k[i] = i64_key(v->tr ? v->tr[i] - v->ta[i] : 0); break;
        case ML_MV_SORT_AA: case ML_MV_SORT_AR: case ML_MV_SORT_AC:
        case ML_MV_SORT_RA: case ML_MV_SORT_RR: case ML_MV_SORT_RC: {
            int64_t t = ml_memview_total_at(v, tc, names, (int)(key - ML_MV_SORT_AA) % 3, key >= ML_MV_SORT_RA,
                                            (uint32_t)i);
            k[i] = i64_key(t < 0 ? 0 : t);
            break;
        }
        default: k[i] = (uint64_t)v->addr_hi[i] << 32 | v->addr_lo[i]; break;
        }
    }
    uint32_t *o = ml_malloc((n ? n : 1) * sizeof *o);
    radix_order(k, n, o);
    free(k);
    free(rank);
    return o;
}

/* ---- the window --------------------------------------------------------- */

void ml_memview_index(const ml_memview *v, ml_mv_index *ix)
{
    size_t n = v->n;
    uint64_t *k = ml_malloc((n ? n : 1) * sizeof *k);
    uint32_t *o = ml_malloc((n ? n : 1) * sizeof *o);
    for (size_t i = 0; i < n; i++) k[i] = i64_key(v->tf[i]);
    radix_order(k, n, o);
    ix->tf_sorted = ml_malloc((n ? n : 1) * sizeof *ix->tf_sorted);
    ix->bytes_tf = ml_malloc((n + 1) * sizeof *ix->bytes_tf);
    ix->bytes_ta = ml_malloc((n + 1) * sizeof *ix->bytes_ta);
    ix->bytes_tf[0] = ix->bytes_ta[0] = 0;
    for (size_t j = 0; j < n; j++) {
        ix->tf_sorted[j] = v->tf[o[j]];
        ix->bytes_tf[j + 1] = ix->bytes_tf[j] + v->size[o[j]];
        ix->bytes_ta[j + 1] = ix->bytes_ta[j] + v->size[j];
    }
    free(k);
    free(o);
    ix->nblk = (n + ML_MV_BLOCK - 1) / ML_MV_BLOCK;
    ix->blk_max_tf = ml_malloc((ix->nblk ? ix->nblk : 1) * sizeof *ix->blk_max_tf);
    ix->blk_max_dur = ml_malloc((ix->nblk ? ix->nblk : 1) * sizeof *ix->blk_max_dur);
    for (size_t b = 0; b < ix->nblk; b++) {
        int64_t mtf = INT64_MIN, mdur = INT64_MIN;
        for (size_t i = b * ML_MV_BLOCK; i < n && i < (b + 1) * ML_MV_BLOCK; i++) {
            if (v->tf[i] > mtf) mtf = v->tf[i];
            if (v->tf[i] - v->ta[i] > mdur) mdur = v->tf[i] - v->ta[i];
        }
        ix->blk_max_tf[b] = mtf;
        ix->blk_max_dur[b] = mdur;
    }
}

void ml_mv_index_free(ml_mv_index *ix)
{
    free(ix->tf_sorted);
    free(ix->bytes_ta);
    free(ix->bytes_tf);
    free(ix->blk_max_tf);
    free(ix->blk_max_dur);
    memset(ix, 0, sizeof *ix);
}

static int by_size_desc_ctx(const void *x, const void *y, void *ctx)
{
    const int64_t *size = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    if (size[a] != size[b]) return size[a] > size[b] ? -1 : 1;
    return (a > b) - (a < b);
}

static int by_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

void ml_memview_window(const ml_memview *v, const ml_mv_index *ix, double t0, double t1, int px, size_t limit,
                       int64_t keep, ml_mv_window *w)
{
    memset(w, 0, sizeof *w);
    size_t ngroups = v->group_label.len;
    double k = px / (t1 - t0 > 1e-9 ? t1 - t0 : 1e-9);
    double min_dur = 1.0 / k;
    size_t hi = ml_upper_bound_f(v->ta, v->n, t1);             /* ta <= t1 */
    size_t gone = ml_lower_bound_f(ix->tf_sorted, v->n, t0);   /* tf < t0: all before hi */
    w->in_window = hi > gone ? hi - gone : 0;
    w->in_bytes = ix->bytes_ta[hi] - ix->bytes_tf[gone < hi ? gone : hi];
    /* Before `near` (allocated more than a pixel before t0) whatever reaches
     * the window is at least a pixel wide: only blocks that can hold such
     * bars are read.  From `near` on every allocation is read. */
    size_t near = ml_lower_bound_f(v->ta, v->n, t0 - min_dur);
    if (near > hi) near = hi;
    int64_t big_bytes = 0;
    for (size_t b = 0; b * ML_MV_BLOCK < near; b++) {
        if ((double)ix->blk_max_tf[b] < t0 || (double)ix->blk_max_dur[b] < min_dur) continue;
        size_t e = (b + 1) * ML_MV_BLOCK < near ? (b + 1) * ML_MV_BLOCK : near;
        for (size_t i = b * ML_MV_BLOCK; i < e; i++) {
            if ((double)v->tf[i] < t0) continue;
            VEC_PUSH(&w->ids, (uint32_t)i);
            big_bytes += v->size[i];
        }
    }
    /* Per column, the groups of its narrow allocations (ta is sorted, so the
     * columns come in order): counts in cnt[], the groups seen in touched. */
    uint32_t *cnt = ml_calloc(ngroups + 1, sizeof *cnt);
    VEC(uint32_t) touched = {0};
    int64_t col = -1;
#define FLUSH_COLUMN() do { \
        for (size_t q = 0; q < touched.len; q++) { \
            VEC_PUSH(&w->small_x, (uint32_t)col); VEC_PUSH(&w->small_group, touched.v[q]); \
            VEC_PUSH(&w->small_n, cnt[touched.v[q]]); \
            cnt[touched.v[q]] = 0; \
        } \
        touched.len = 0; \
    } while (0)
    for (size_t i = near; i < hi; i++) {
        if ((double)v->tf[i] < t0) continue;
        double xa = ((double)v->ta[i] - t0) * k, xf = ((double)v->tf[i] - t0) * k;
        if (xf - xa >= 1) {
            VEC_PUSH(&w->ids, (uint32_t)i);
            big_bytes += v->size[i];
            continue;
        }
        int64_t x = xa < 0 ? 0 : xa >= px ? px - 1 : (int64_t)xa;
        if (x != col) { FLUSH_COLUMN(); col = x; }
        uint32_t g = v->group[i];
        if (!cnt[g]++) VEC_PUSH(&touched, g);
    }
    FLUSH_COLUMN();
#undef FLUSH_COLUMN
    free(cnt);
    VEC_FREE(&touched);
    w->wide = w->ids.len;
    if (w->ids.len > limit) { /* keep the largest */
        qsort_r(w->ids.v, w->ids.len, sizeof *w->ids.v, by_size_desc_ctx, (void *)v->size);
        w->ids.len = limit;
        qsort(w->ids.v, w->ids.len, sizeof *w->ids.v, by_u32);
        w->limited = true;
        big_bytes = 0;
        for (size_t j = 0; j < w->ids.len; j++) big_bytes += v->size[w->ids.v[j]];
    }
    w->summarised = w->in_window - (w->limited ? limit : w->wide);
    w->summarised_bytes = w->in_bytes - big_bytes;
    if (keep >= 0 && (size_t)keep < v->n) { /* the selected allocation stays, whatever its width */
        size_t j = 0;
        while (j < w->ids.len && w->ids.v[j] < (uint32_t)keep) j++;
        if (j == w->ids.len || w->ids.v[j] != (uint32_t)keep) {
            VEC_PUSH(&w->ids, 0);
            memmove(w->ids.v + j + 1, w->ids.v + j, (w->ids.len - 1 - j) * sizeof *w->ids.v);
            w->ids.v[j] = (uint32_t)keep;
        }
    }
}

void ml_mv_window_free(ml_mv_window *w)
{
    VEC_FREE(&w->ids);
    VEC_FREE(&w->small_x);
    VEC_FREE(&w->small_group);
    VEC_FREE(&w->small_n);
}

/* ---- the table ---------------------------------------------------------- */

void ml_mv_filter_init(ml_mv_filter *f, const ml_memview *v, const ml_mv_names *names, const ml_mv_table_query *q)
{
    f->q = q;
    f->gok = f->sok = NULL;
    if (!q->text || !q->text[0]) return;
    size_t ngroups = v->group_label.len, tl = strlen(q->text);
    f->gok = ml_malloc(ngroups + 1);
    f->sok = ml_malloc(names->n + 1);
    for (size_t g = 0; g < ngroups; g++) f->gok[g] = (uint8_t)ml_contains_ci(v->group_label.v[g], q->text, tl);
    for (size_t s = 0; s < names->n; s++) f->sok[s] = (uint8_t)ml_contains_ci(names->s[s], q->text, tl);
}

bool ml_mv_filter_keeps(const ml_mv_filter *f, const ml_memview *v, uint32_t i)
{
    const ml_mv_table_query *q = f->q;
    if (q->min_size >= 0 && v->size[i] < q->min_size) return false;
    if (q->max_size >= 0 && v->size[i] > q->max_size) return false;
    if (q->in_window && ((double)v->ta[i] > q->t1 || (double)v->tf[i] < q->t0)) return false;
    if (f->gok && !f->gok[v->group[i]] && !f->sok[v->op[i]]) return false;
    if (q->cat >= 0 && v->cat[i] != q->cat) return false;
    return true;
}

void ml_mv_filter_free(ml_mv_filter *f)
{
    free(f->gok);
    free(f->sok);
    f->gok = f->sok = NULL;
}

void ml_memview_table(const ml_memview *v, const ml_mv_filter *f, const uint32_t *order, ml_mv_page *out)
{
    const ml_mv_table_query *q = f->q;
    memset(out, 0, sizeof *out);
    size_t want0 = q->page * q->page_size, total = 0;
    for (int pass = 0; pass < 2; pass++) {
        total = 0;
        for (size_t j = 0; j < v->n; j++) {
            uint32_t i = order[q->dir < 0 ? v->n - 1 - j : j];
            if (!ml_mv_filter_keeps(f, v, i)) continue;
            if (total >= want0 && total < want0 + q->page_size) VEC_PUSH(&out->rows, i);
            total++;
        }
        size_t pages = total ? (total + q->page_size - 1) / q->page_size : 1;
        if (want0 < total || !total || pass) break;
        want0 = (pages - 1) * q->page_size; /* past the end: the last page */
    }
    out->total = total;
    out->page = want0 / q->page_size;
    out->pages = total ? (total + q->page_size - 1) / q->page_size : 1;
}

/* ---- the category chart's band tops -------------------------------------- */

size_t ml_memview_band_tops(const ml_memview *v, ml_mv_band_top *out, size_t max)
{
    size_t k = 0, n = v->ncat_t;
    for (; k < v->bands.len && k < max; k++) {
        int64_t *top = ml_malloc((n ? n : 1) * sizeof *top);
        ml_memview_band_values(v, k, top);
        for (size_t i = 0; k && i < n; i++) top[i] += out[k - 1].v[i];
        out[k].cat = v->bands.v[k].cat;
        out[k].v = top;
        ml_m4_build(top, n, &out[k].py);
    }
    return k;
}

/* ---- the curves' windows ------------------------------------------------- */

/* The times of the drawn points idx[0..n) of a window, edged (ml_mv_points):
 * *close set when a point at t1 was added.  t: n + 1 slots. */
static size_t edge_times(const int64_t *ct, const uint32_t *idx, size_t n, double t0, double t1, int64_t *t,
                         int *close)
{
    for (size_t k = 0; k < n; k++) t[k] = ct[idx[k]];
    *close = 0;
    if (!n) return 0;
    int64_t a = (int64_t)ceil(t0), b = (int64_t)floor(t1);
    if ((double)t[0] < t0 && (n == 1 || t[1] > a)) t[0] = a;   /* (a point at t0 itself needs no carry) */
    if (t[n - 1] < b) { t[n] = b; *close = 1; return n + 1; }
    return n;
}

/* Values at the points of edge_times: idx's, the last repeated when closed. */
static void edge_values(const int64_t *cv, const uint32_t *idx, size_t n, int close, int64_t *v)
{
    for (size_t k = 0; k < n; k++) v[k] = cv[idx[k]];
    if (close && n) v[n] = v[n - 1];
}

void ml_mv_curve_window(const ml_m4_curve *c, double t0, double t1, int px, ml_mv_points *out)
{
    ml_m4_pick q;
    ml_m4_select(c, t0, t1, px, &q);
    const int64_t *vs[1] = { c->v };
    q.out.len = ml_m4_compact(c->t, vs, 1, q.out.v, q.out.len, q.t0, q.dt);
    out->t = ml_malloc((q.out.len + 1) * sizeof *out->t);
    out->v = ml_malloc((q.out.len + 1) * sizeof *out->v);
    int close;
    out->n = edge_times(c->t, q.out.v, q.out.len, t0, t1, out->t, &close);
    edge_values(c->v, q.out.v, q.out.len, close, out->v);
    VEC_FREE(&q.out);
}

void ml_mv_points_free(ml_mv_points *p)
{
    free(p->t);
    free(p->v);
    memset(p, 0, sizeof *p);
}

int64_t ml_mv_curve_max(const ml_m4_curve *c, double t0, double t1)
{
    ml_m4_pick q;
    ml_m4_select(c, t0, t1, 1, &q);
    int64_t m = 0;
    for (size_t k = 0; k < q.out.len; k++) if (c->v[q.out.v[k]] > m) m = c->v[q.out.v[k]];
    VEC_FREE(&q.out);
    return m;
}

void ml_mv_bands_window(const ml_m4_curve *tops, size_t nbands, double t0, double t1, int px, ml_mv_band_points *out)
{
    /* Every band's edge keeps its own M4 points: the union of the picks of
     * all band tops, and every top read at those points. */
    VEC(uint32_t) all = {0};
    for (size_t k = 0; k < nbands; k++) {
        ml_m4_pick q;
        ml_m4_select(&tops[k], t0, t1, px, &q);
        for (size_t j = 0; j < q.out.len; j++) VEC_PUSH(&all, q.out.v[j]);
        VEC_FREE(&q.out);
    }
    if (all.len) qsort(all.v, all.len, sizeof *all.v, by_u32);
    size_t u = 0;
    for (size_t j = 0; j < all.len; j++)
        if (!u || all.v[j] != all.v[u - 1]) all.v[u++] = all.v[j];
    all.len = u;
    const int64_t **vs = ml_malloc((nbands ? nbands : 1) * sizeof *vs);
    for (size_t k = 0; k < nbands; k++) vs[k] = tops[k].v;
    if (nbands) {
        double dt = (t1 - t0) / (px > 1 ? px : 1);
        all.len = ml_m4_compact(tops[0].t, (const int64_t *const *)vs, nbands, all.v, all.len, t0, dt > 0 ? dt : 1e-9);
    }
    out->nbands = nbands;
    out->t = ml_malloc((all.len + 1) * sizeof *out->t);
    out->v = ml_malloc((nbands ? nbands : 1) * sizeof *out->v);
    int close = 0;
    out->n = nbands ? edge_times(tops[0].t, all.v, all.len, t0, t1, out->t, &close) : 0;
    for (size_t k = 0; k < nbands; k++) {
        out->v[k] = ml_malloc((all.len + 1) * sizeof *out->v[k]);
        edge_values(vs[k], all.v, all.len, close, out->v[k]);
    }
    free(vs);
    VEC_FREE(&all);
}

void ml_mv_band_points_free(ml_mv_band_points *w)
{
    for (size_t k = 0; k < w->nbands; k++) free(w->v[k]);
    free(w->v);
    free(w->t);
    memset(w, 0, sizeof *w);
}

void ml_mv_column_peaks(const ml_m4_curve *c, const ml_m4_curve *tracked, double t0, double t1, int px,
                        ml_mv_peak_columns *out)
{
    size_t n = c ? (size_t)px : 0;
    out->n = n;
    out->t = ml_malloc((n ? n : 1) * sizeof *out->t);
    out->v = ml_malloc((n ? n : 1) * sizeof *out->v);
    out->base = ml_calloc(n ? n : 1, sizeof *out->base);
    if (!n) return;
    ml_m4_pick q;
    ml_m4_select(c, t0, t1, px, &q);
    double dt = (t1 - t0) / px;
    size_t j = 0;
    int64_t cur = 0;
    for (size_t x = 0; x < n; x++) {
        double cs = t0 + (double)x * dt, ce = t0 + (double)(x + 1) * dt;
        while (j < q.out.len && (double)c->t[q.out.v[j]] < cs) cur = c->v[q.out.v[j++]];
        int64_t bt = (int64_t)ceil(cs);   /* the column's first whole ns: the value in force there */
        int64_t best = j < q.out.len && c->t[q.out.v[j]] == bt ? INT64_MIN : cur;
        for (; j < q.out.len && (double)c->t[q.out.v[j]] < ce; j++) {
            cur = c->v[q.out.v[j]];
            if (cur > best) { best = cur; bt = c->t[q.out.v[j]]; }
        }
        out->t[x] = bt;
        out->v[x] = best;
    }
    VEC_FREE(&q.out);
    for (size_t x = 0; tracked && x < n; x++) {
        size_t k = ml_upper_bound_f(tracked->t, tracked->n, (double)out->t[x]);
        int64_t live = k ? tracked->v[k - 1] : 0;
        out->base[x] = out->v[x] > live ? out->v[x] - live : 0;
    }
}

void ml_mv_peak_columns_free(ml_mv_peak_columns *p)
{
    free(p->t);
    free(p->v);
    free(p->base);
    memset(p, 0, sizeof *p);
}
