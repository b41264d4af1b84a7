/*
 * view.c — builds the server's view of one rank (see view.h): runs
 * report_data.c on the rank for its meta (columns described, not encoded),
 * keeps the memory views it wrote from (memview.h) and points into them.
 */
#include "view.h"
#include "api_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "categories.h"
#include "m4.h"
#include "memview.h"
#include "report.h"
#include "search.h"

/* A curve of the view (memview.h) with its pyramid. */
static ml_sv_curve view_curve(const ml_mv_curve *vc)
{
    ml_sv_curve c = { .n = vc->n, .fan = ML_M4_FAN, .t = vc->t, .v = vc->v, .mn = vc->py.argmin, .mx = vc->py.argmax };
    ml_m4_curve_levels(&c);
    return c;
}

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

static uint64_t i64_key(int64_t v) { return (uint64_t)v ^ 0x8000000000000000ull; }

/* Rank of each label in byte order, so that names sort as numbers. */
static uint32_t *name_ranks(const char **names, size_t n)
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

uint32_t ml_sv_cat_rank(unsigned cat)
{
    for (uint32_t j = 0; j < ML_CAT__COUNT; j++)
        if (ml_category_order[j] == cat) return j;
    return ML_CAT__COUNT;
}

int64_t ml_sv_total_at(const ml_sv_rank *r, const ml_sv_device *d, int k, int rel, uint32_t i)
{
    int c = d->comp_curve[strncmp(r->strings[d->op[i]], "cann::", 6) ? 0 : 1][k];
    if (c < 0) c = d->tot_curve[k];
    if (c < 0 || (rel && d->flags[i] & ML_MV_NEVER_FREED)) return -1;
    const ml_sv_curve *cv = &d->curves[c];
    size_t j = ml_upper_bound_i64(cv->t, cv->n, rel ? d->tf[i] : d->ta[i]);
    return j ? cv->v[j - 1] : -1;
}

const uint32_t *ml_sv_order(ml_sv_device *d, const ml_sv_rank *r, ml_sort_key key)
{
    pthread_mutex_lock(&d->mu);
    if (!d->order[key]) {
        uint64_t *k = ml_malloc((d->n ? d->n : 1) * sizeof *k);
        uint32_t *rank = NULL;
        if (key == ML_SORT_GROUP) rank = name_ranks(d->groups, d->ngroups);
        else if (key == ML_SORT_OP || key == ML_SORT_STREAM) rank = name_ranks(r->strings, r->nstrings);
        uint32_t reason_rank[ML_REASON__COUNT];
        if (key == ML_SORT_REASON) { /* by the reason's text, as the page shows it */
            const char *texts[ML_REASON__COUNT];
            for (int k2 = 0; k2 < ML_REASON__COUNT; k2++) texts[k2] = ml_category_reason_text(k2);
            uint32_t *rr = name_ranks(texts, ML_REASON__COUNT);
            memcpy(reason_rank, rr, sizeof reason_rank);
            free(rr);
        }
        for (size_t i = 0; i < d->n; i++) {
            switch (key) {
            case ML_SORT_GROUP: k[i] = d->group[i] < d->ngroups ? rank[d->group[i]] : 0; break;
            case ML_SORT_OP: k[i] = d->op[i] < r->nstrings ? rank[d->op[i]] : 0; break;
            case ML_SORT_STREAM: k[i] = d->stream[i] < r->nstrings ? rank[d->stream[i]] : 0; break;
            case ML_SORT_SIZE: k[i] = i64_key(d->size[i]); break;
            case ML_SORT_TA: k[i] = i64_key(d->ta[i]); break;
            case ML_SORT_TF: k[i] = i64_key(d->tf[i]); break;
            case ML_SORT_DUR: k[i] = i64_key(d->tf[i] - d->ta[i]); break;
            case ML_SORT_CAT: k[i] = ml_sv_cat_rank(d->cat[i]); break;
            case ML_SORT_REASON: k[i] = d->reason ? reason_rank[d->reason[i] < ML_REASON__COUNT ? d->reason[i] : 0] : 0; break;
            /* Ascend: as the page, an unknown value sorts as 0 */
            case ML_SORT_TR: k[i] = i64_key(d->tr ? d->tr[i] : 0); break;
            case ML_SORT_ADUR: k[i] = i64_key(d->tr ? d->tr[i] - d->ta[i] : 0); break;
            case ML_SORT_AA: case ML_SORT_AR: case ML_SORT_AC: case ML_SORT_RA: case ML_SORT_RR: case ML_SORT_RC: {
                int64_t v = ml_sv_total_at(r, d, (int)(key - ML_SORT_AA) % 3, key >= ML_SORT_RA, (uint32_t)i);
                k[i] = i64_key(v < 0 ? 0 : v);
                break;
            }
            default: k[i] = (uint64_t)d->addr_hi[i] << 32 | d->addr_lo[i]; break;
            }
        }
        uint32_t *o = ml_malloc((d->n ? d->n : 1) * sizeof *o);
        radix_order(k, d->n, o);
        free(k);
        free(rank);
        d->order[key] = o;
    }
    const uint32_t *o = d->order[key];
    pthread_mutex_unlock(&d->mu);
    return o;
}

/* ---- building ----------------------------------------------------------- */

static void build_index(ml_sv_device *d)
{
    size_t n = d->n;
    uint64_t *k = ml_malloc((n ? n : 1) * sizeof *k);
    uint32_t *o = ml_malloc((n ? n : 1) * sizeof *o);
    for (size_t i = 0; i < n; i++) k[i] = i64_key(d->tf[i]);
    radix_order(k, n, o);
    d->tf_sorted = ml_malloc((n ? n : 1) * sizeof *d->tf_sorted);
    d->bytes_tf = ml_malloc((n + 1) * sizeof *d->bytes_tf);
    d->bytes_ta = ml_malloc((n + 1) * sizeof *d->bytes_ta);
    d->bytes_tf[0] = d->bytes_ta[0] = 0;
    for (size_t j = 0; j < n; j++) {
        d->tf_sorted[j] = d->tf[o[j]];
        d->bytes_tf[j + 1] = d->bytes_tf[j] + d->size[o[j]];
        d->bytes_ta[j + 1] = d->bytes_ta[j] + d->size[j];
    }
    free(k);
    free(o);
    d->nblk = (n + ML_SV_BLOCK - 1) / ML_SV_BLOCK;
    d->blk_max_tf = ml_malloc((d->nblk ? d->nblk : 1) * sizeof *d->blk_max_tf);
    d->blk_max_dur = ml_malloc((d->nblk ? d->nblk : 1) * sizeof *d->blk_max_dur);
    for (size_t b = 0; b < d->nblk; b++) {
        int64_t mtf = INT64_MIN, mdur = INT64_MIN;
        for (size_t i = b * ML_SV_BLOCK; i < n && i < (b + 1) * ML_SV_BLOCK; i++) {
            if (d->tf[i] > mtf) mtf = d->tf[i];
            if (d->tf[i] - d->ta[i] > mdur) mdur = d->tf[i] - d->ta[i];
        }
        d->blk_max_tf[b] = mtf;
        d->blk_max_dur[b] = mdur;
    }
}

/* The category chart: the view's bands summed bottom up into band tops (view.h). */
static void category_stack(const ml_memview *v, ml_sv_device *d)
{
    /* (the report's writer has made the bands: ml_memview_categories) */
    for (size_t k = 0; k < v->bands.len && k < sizeof d->cat_code / sizeof *d->cat_code; k++) {
        const ml_mv_band *b = &v->bands.v[k];
        ml_sv_curve c = { .n = v->ncat_t, .t = v->cat_t };
        int64_t *top = ml_malloc((c.n ? c.n : 1) * sizeof *top);
        ml_memview_band_values(v, k, top);
        for (size_t i = 0; k && i < c.n; i++) top[i] += d->cat_top_v[k - 1][i];
        ml_m4 py;
        ml_m4_build(top, c.n, &py);
        c.v = top;
        c.mn = py.argmin;
        c.mx = py.argmax;
        c.fan = ML_M4_FAN;
        ml_m4_curve_levels(&c);
        d->cat_code[k] = b->cat;
        d->cat_top[k] = c;
        d->cat_top_v[k] = top;
        d->cat_mn[k] = py.argmin;
        d->cat_mx[k] = py.argmax;
        d->ncat = k + 1;
    }
}

static void view_device(ml_sv_rank *r, ml_memview *v, ml_sv_device *d)
{
    pthread_mutex_init(&d->mu, NULL);
    d->view = v;
    d->pdev = v->dev;
    d->id = r->p->devices.v[v->dev].id;
    d->t0 = v->t0 - r->origin;
    d->t1 = v->t1 - r->origin;
    d->ncurves = v->curves.len;
    d->nop = v->op_curves.len;
    d->curves = ml_calloc(d->ncurves + 1, sizeof *d->curves);
    d->op_curves = ml_calloc(d->nop + 1, sizeof *d->op_curves);
    for (size_t k = 0; k < d->ncurves; k++) d->curves[k] = view_curve(&v->curves.v[k]);
    for (size_t k = 0; k < d->nop; k++) d->op_curves[k] = view_curve(&v->op_curves.v[k]);
    d->tracked_curve = -1;
    for (size_t k = 0; k < d->ncurves; k++)
        if (!strcmp(v->curves.v[k].group, "tracked")) d->tracked_curve = (int)k;
    category_stack(v, d);
    ml_memview_release_bands(v); /* the tops are all the server reads of them */
    d->peak_curve = -1;
    if (d->ncurves) {
        int pc = v->peak_curve;
        d->peak_curve = pc >= 0 && (size_t)pc < d->ncurves ? pc : 0;
        /* As the report: the gap between the curve and the live set is memory
         * allocated before the trace only when the curve is recorded totals. */
        d->total_known = !strcmp(v->peak_kind, "allocated") && !strstr(v->curves.v[d->peak_curve].label, "replayed");
    }
    d->n = v->n;
    d->ta = v->ta;
    d->tf = v->tf;
    d->size = v->size;
    d->addr_hi = v->addr_hi;
    d->addr_lo = v->addr_lo;
    d->group = v->group;
    d->op = v->op;
    d->stream = v->stream;
    d->stack = v->stack;
    d->src = v->src;
    d->flags = v->flags;
    d->cat = v->cat;
    d->reason = v->reason;
    d->tr = v->tr;
    {
        static const char *const kinds[] = {"allocated", "reserved", "active"}, *const comps[] = {"PTA", "GE"};
        for (int k = 0; k < 3; k++) {
            d->tot_curve[k] = d->comp_curve[0][k] = d->comp_curve[1][k] = -1;
            for (size_t c = d->ncurves; c-- > 0;) {
                const ml_mv_curve *cv = &v->curves.v[c];
                if (strcmp(cv->kind, kinds[k])) continue;
                if (!strcmp(cv->group, "overall")) d->tot_curve[k] = (int)c; /* the first, as the page */
                for (int o = 0; o < 2 && !strcmp(cv->group, "component"); o++) {
                    char plain[48], insight[48]; /* the writer's names (report.h), not a module's curve */
                    ml_report_curve_label(plain, sizeof plain, false, kinds[k], comps[o], NULL);
                    ml_report_curve_label(insight, sizeof insight, true, kinds[k], comps[o], NULL);
                    if (cv->of && !strcmp(cv->of, comps[o]) && (!strcmp(cv->label, plain) || !strcmp(cv->label, insight)))
                        d->comp_curve[o][k] = (int)c;
                }
            }
        }
    }
    d->group_by_frame = v->by_frame;
    d->ngroups = v->group_label.len;
    d->groups = v->group_label.v;
    build_index(d);
}

ml_sv_rank *ml_sv_rank_build(ml_profile *p, ml_err *e)
{
    ml_sv_rank *r = ml_calloc(1, sizeof *r);
    pthread_mutex_init(&r->perf_mu, NULL);
    r->p = p;
    r->origin = ml_profile_first_time(p);
    if (r->origin == INT64_MAX) r->origin = 0;
    r->bl.capture = ML_BLOBS_DESCRIBE; /* the columns are the views' own */
    ml_buf m = {0};
    ml_memview **views = NULL;
    ml_report_rank_keep(p, r->origin, SIZE_MAX, 0, &m, &r->bl, &r->strs, &views, &r->ndev); /* (the state history: the report's default) */
    r->views = views;
    ml_buf_printf(&r->meta, "{\"origin_ns\":\"%lld\",\"loaded\":true,", (long long)r->origin);
    ml_buf_put(&r->meta, m.p + 1, m.len - 1);
    ml_buf_free(&m);

    r->nstrings = r->strs.ids.len;
    r->strings = ml_calloc(r->nstrings + 1, sizeof *r->strings);
    for (size_t i = 0; i < r->nstrings; i++) r->strings[i] = ml_s(p, r->strs.ids.v[i]);
    r->nstacks = p->stack_start.len;
    r->stack_start = p->stack_start.v;
    r->nstack_frames = p->stack_frames.len;
    r->stack_frames = p->stack_frames.v;
    r->nframes = p->frames.len;
    uint32_t *fname = ml_malloc((r->nframes + 1) * sizeof *fname), *ffile = ml_malloc((r->nframes + 1) * sizeof *ffile);
    int64_t *fline = ml_malloc((r->nframes + 1) * sizeof *fline);
    for (size_t i = 0; i < r->nframes; i++) { /* the report wrote them: in the strings already */
        fname[i] = ml_mv_str(&r->strs, p->frames.v[i].name);
        ffile[i] = ml_mv_str(&r->strs, p->frames.v[i].file);
        fline[i] = p->frames.v[i].line;
    }
    r->frame_name = r->own_frame_name = fname;
    r->frame_file = r->own_frame_file = ffile;
    r->frame_line = r->own_frame_line = fline;
    r->dev = ml_calloc(r->ndev + 1, sizeof *r->dev);
    for (size_t k = 0; k < r->ndev; k++) view_device(r, r->views[k], &r->dev[k]);
    (void)e;
    r->trace = ml_sv_trace_build(p, r->origin);
    return r;
}

void ml_sv_rank_free(ml_sv_rank *r)
{
    if (!r) return;
    for (size_t k = 0; k < r->ndev; k++) {
        ml_sv_device *d = &r->dev[k];
        free(d->curves);
        free(d->op_curves);
        free(d->tf_sorted);
        free(d->bytes_ta);
        free(d->bytes_tf);
        free(d->blk_max_tf);
        free(d->blk_max_dur);
        for (size_t c = 0; c < d->ncat; c++) { free(d->cat_top_v[c]); free(d->cat_mn[c]); free(d->cat_mx[c]); }
        for (int s = 0; s < ML_SORT__COUNT; s++) free(d->order[s]);
        pthread_mutex_destroy(&d->mu);
    }
    free(r->dev);
    for (size_t k = 0; k < r->ndev && r->views; k++) ml_memview_free(r->views[k]);
    free(r->views);
    ml_mv_strings_free(&r->strs);
    free(r->strings);
    free(r->own_frame_name);
    free(r->own_frame_file);
    free(r->own_frame_line);
    ml_sv_trace_free(r->trace);
    ml_blobs_free(&r->bl);
    ml_buf_free(&r->meta);
    ml_buf_free(&r->perf);
    pthread_mutex_destroy(&r->perf_mu);
    if (r->p) ml_profile_free(r->p);
    free(r);
}

bool ml_sv_perf(ml_sv_rank *r, const ml_distributed *dist, size_t key, int top, ml_buf *out)
{
    pthread_mutex_lock(&r->perf_mu);
    if (r->perf_state > 0 && (r->perf_key != key || r->perf_top != top)) {
        /* more ranks loaded since (the distributed view changed), or other rows asked for */
        r->perf.len = 0;
        r->perf_state = 0;
    }
    if (!r->perf_state) {
        /* the job's backend, world size and slowest rank with this rank's own
         * steps and collectives (every rank's in each grew with the ranks squared) */
        ml_dist_part part;
        ml_distributed one;
        const ml_distributed *d = dist;
        bool has_part = dist && ml_distributed_part(r->p, r->p->rank, &part);
        if (has_part) {
            one = *dist;
            one.steps = part.steps;
            one.n_steps = part.n_steps;
            one.collectives = part.collectives;
            one.n_collectives = part.n_collectives;
            d = &one;
        }
        r->perf_state = ml_report_perf_json_with(r->p, d, top, &r->perf) ? 1 : -1;
        r->perf_key = key;
        r->perf_top = top;
        if (has_part) ml_dist_part_free(&part);
    }
    bool ok = r->perf_state > 0;
    if (ok) ml_buf_put(out, r->perf.p, r->perf.len);
    pthread_mutex_unlock(&r->perf_mu);
    return ok;
}
