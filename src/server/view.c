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
#include "jsonw.h"
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

const uint32_t *ml_sv_order(ml_sv_device *d, const ml_sv_rank *r, ml_mv_sort key)
{
    pthread_mutex_lock(&d->mu);
    if (!d->order[key]) d->order[key] = ml_memview_order(d->view, &r->names, &d->totals, key);
    const uint32_t *o = d->order[key];
    pthread_mutex_unlock(&d->mu);
    return o;
}

/* ---- building ----------------------------------------------------------- */

/* The category chart: the view's band tops (memview.h), as curves. */
static void category_stack(const ml_memview *v, ml_sv_device *d)
{
    /* (the report's writer has made the bands: ml_memview_categories) */
    ml_mv_band_top tops[sizeof d->cat_code / sizeof *d->cat_code];
    d->ncat = ml_memview_band_tops(v, tops, sizeof tops / sizeof *tops);
    for (size_t k = 0; k < d->ncat; k++) {
        ml_sv_curve c = { .n = v->ncat_t, .t = v->cat_t, .v = tops[k].v, .mn = tops[k].py.argmin,
                          .mx = tops[k].py.argmax, .fan = ML_M4_FAN };
        ml_m4_curve_levels(&c);
        d->cat_code[k] = tops[k].cat;
        d->cat_top[k] = c;
        d->cat_top_v[k] = tops[k].v;
        d->cat_mn[k] = tops[k].py.argmin;
        d->cat_mx[k] = tops[k].py.argmax;
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
    }
    ml_memview_totals(v, &d->totals);
    ml_memview_index(v, &d->ix);
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
    /* the rank object with its origin first: {"origin_ns":"…","loaded":true, then the report's members} */
    jw w;
    jw_init_buf(&w, &r->meta, false);
    jw_obj(&w);
    char origin[32];
    snprintf(origin, sizeof origin, "%lld", (long long)r->origin);
    jw_key(&w, "origin_ns"), jw_str(&w, origin);
    jw_key(&w, "loaded"), jw_bool(&w, true);
    if (m.len >= 2) jw_paste(&w, m.p + 1, m.len - 2); /* the members inside m's braces */
    jw_end(&w);
    ml_buf_free(&m);

    r->nstrings = r->strs.ids.len;
    r->strings = ml_calloc(r->nstrings + 1, sizeof *r->strings);
    for (size_t i = 0; i < r->nstrings; i++) r->strings[i] = ml_s(p, r->strs.ids.v[i]);
    r->names = (ml_mv_names){ r->strings, r->nstrings };
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
        ml_mv_index_free(&d->ix);
        for (size_t c = 0; c < d->ncat; c++) { free(d->cat_top_v[c]); free(d->cat_mn[c]); free(d->cat_mx[c]); }
        for (int s = 0; s < ML_MV_SORT__COUNT; s++) free(d->order[s]);
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
        bool has_part = dist && ml_distributed_part(r->p, r->p->rank, false, &part); /* (its steps and collectives) */
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
