/*
 * report_data.c — the data of the HTML report: for every rank and device,
 * the memory curves with their M4 pyramids, the exact peak and the live set
 * at it, the allocations (capped by a budget that keeps the ones that
 * matter) and per-operator statistics.  The page sees only this, never raw
 * events; web/DATA.md is the contract.
 *
 * Times are written relative to one origin (the earliest time of all ranks),
 * as int64 ns, so that the page can hold them exactly in doubles.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "breakdown.h"
#include "components.h"
#include "format.h"
#include "curve.h"
#include "m4.h"
#include "memview.h"
#include "report.h"
#include "report_caps.h"
#include "stats.h"
#include "perf.h"
#include "categories.h"
#include "report_trace.h"
#include "report_static.h"
#include "report_segments.h"
#include "unmatched.h"
#include "beforetrace.h"
#include "par.h"
#include "phase.h"
#include "sortperm.h"
#include "scratch.h"



void ml_report_curve_label(char *buf, size_t cap, bool insight, const char *kind, const char *comp, const char *stream)
{
    static const char *const kinds[][2] = {
        {"allocated", "Allocated"}, {"reserved", "Reserved"}, {"active", "Activated"}, {"app reserved", "APP Reserved"}};
    const char *name = kind;
    for (size_t k = 0; insight && k < sizeof kinds / sizeof *kinds; k++)
        if (!strcmp(kind, kinds[k][0])) name = kinds[k][1];
    if (stream && insight) snprintf(buf, cap, "%s of %s", name, stream);
    else if (stream) snprintf(buf, cap, "stream %s %s", stream, kind);
    else if (comp) snprintf(buf, cap, "%s %s", comp, name);
    else if (insight && strcmp(kind, "app reserved")) snprintf(buf, cap, "Operator %s", name);
    else snprintf(buf, cap, "%s", name);
}

/* Whether a profile's curves go by MindStudio Insight's names (its importer says: Ascend inputs). */
static bool insight_names(const ml_profile *p) { return p->caps.insight_names; }

/* ---- per-rank context -------------------------------------------------- */

typedef struct rank_ctx {
    const ml_profile *p;
    int64_t origin;
    ml_blobs *bl;
    ml_buf *meta;
    jw *w;                    /* the writer of meta */
    ml_mv_strings str;        /* the rank's "strings" (memview.h) */
    uint32_t *calls;          /* profile string id -> number of cpu ops with that name */
    size_t max_allocs;
    size_t max_history;       /* a snapshot's state history: allocator events per device (report_segments.h) */
    /* The device's overall allocated curve: its times' column descriptor,
     * which the category bands share when their times are the same (a
     * second copy of the largest column, in a memory-heavy trace). */
    ml_buf alloc_tdesc;
} rank_ctx;

static int64_t rel(const rank_ctx *c, int64_t t) { return t - c->origin; }

/* ---- writing a device's view ------------------------------------------- */

/* The key of a column and its place: the encoder (report_enc.h) writes its
 * descriptor into meta. */
static ml_buf *col_at(rank_ctx *c, const char *key)
{
    jw_key(c->w, key);
    jw_value_begin(c->w);
    return c->meta;
}

/* One curve into meta: points, pyramid, maximum; save_t: copy the times'
 * descriptor into alloc_tdesc. */
static void put_curve(rank_ctx *c, const ml_mv_curve *cv, bool save_t)
{
    jw *w = c->w;
    jw_obj(w);
    jw_key(w, "kind"), jw_text(w, cv->kind);
    jw_key(w, "group"), jw_text(w, cv->group);
    jw_key(w, "label"), jw_text(w, cv->label);
    if (cv->of) jw_key(w, "of"), jw_text(w, cv->of);
    jw_key(w, "n"), jw_i64(w, (int64_t)cv->n);
    jw_key(w, "fan"), jw_i64(w, ML_M4_FAN);
    jw_key(w, "max"), jw_i64_js(w, cv->max);
    jw_key(w, "tmax"), jw_i64_js(w, cv->tmax);
    ml_buf *m = col_at(c, "t");
    size_t at = m->len;
    ml_col_i64(c->bl, m, cv->t, cv->n, 1);
    if (save_t) {
        c->alloc_tdesc.len = 0;
        ml_buf_put(&c->alloc_tdesc, m->p + at, m->len - at);
    }
    ml_col_i64(c->bl, col_at(c, "v"), cv->v, cv->n, 1);
    ml_col_u32(c->bl, col_at(c, "mn"), cv->py.argmin, cv->py.total);
    ml_col_u32(c->bl, col_at(c, "mx"), cv->py.argmax, cv->py.total);
    jw_end(w);
}

static void put_label_sums(jw *w, const ml_mv_sum *ls, size_t n)
{
    jw_arr(w);
    for (size_t i = 0; i < n; i++) {
        if (!ls[i].bytes && !ls[i].count) continue;
        jw_arr(w);
        jw_text(w, ls[i].label);
        jw_i64_js(w, ls[i].bytes);
        jw_i64(w, ls[i].count);
        jw_end(w);
    }
    jw_end(w);
}

void ml_report_put_peak(const ml_memview *v, jw *w)
{
    jw_obj(w);
    jw_key(w, "curve"), jw_i64(w, v->peak_curve);
    jw_key(w, "v"), jw_i64_js(w, v->peak_v);
    jw_key(w, "t"), jw_i64_js(w, v->peak_t - v->origin);
    jw_key(w, "event"), jw_i64(w, v->peak_event);
    jw_key(w, "kind"), jw_str(w, v->peak_kind);
    jw_key(w, "live_tracked"), jw_i64_js(w, v->live_tracked);
    jw_key(w, "live_count"), jw_i64(w, v->live_count);
    jw_key(w, "untracked"), jw_i64_js(w, v->untracked);
    jw_key(w, "by_op"), put_label_sums(w, v->peak_by_op, v->group_label.len);
    jw_key(w, "by_frame"), put_label_sums(w, v->peak_by_frame, v->npeak_by_frame);
    jw_key(w, "by_category"), put_label_sums(w, v->peak_by_cat, ML_CAT__COUNT + 1);
    jw_end(w);
}

void ml_report_put_ops(const ml_memview *v, jw *w)
{
    jw_arr(w);
    for (size_t g = 0; g < v->group_label.len; g++) {
        const ml_mv_group_stat *gs = &v->gs[g];
        if (!gs->allocs && !gs->peak) continue;
        jw_arr(w);
        jw_text(w, v->group_label.v[g]);
        if (v->calls[g] >= 0) jw_i64(w, v->calls[g]);
        else jw_null(w);
        jw_i64(w, gs->allocs);
        jw_i64_js(w, gs->bytes);
        jw_i64_js(w, gs->net);
        jw_i64_js(w, gs->peak);
        jw_end(w);
    }
    jw_end(w);
}

/* The column encoders by the table's name for them (memview.h ML_MV_COLUMNS). */
static void col_i64(ml_blobs *bl, ml_buf *m, const int64_t *v, size_t n, int delta) { ml_col_i64(bl, m, v, n, delta); }
static void col_u32(ml_blobs *bl, ml_buf *m, const uint32_t *v, size_t n, int delta) { (void)delta; ml_col_u32(bl, m, v, n); }
static void col_u8(ml_blobs *bl, ml_buf *m, const uint8_t *v, size_t n, int delta) { (void)delta; ml_col_u8(bl, m, v, n); }

/* category_curves: the bands of the view on their shared time column
 * (written once; the allocated curve's own when the times are its).  They
 * need no M4 pyramid of their own: the page and the server build one per
 * band top. */
static void put_category_curves(rank_ctx *c, ml_memview *v)
{
    ml_memview_categories(v);
    if (!v->cat_any) return;
    ml_buf tcol = {0};
    if (v->cat_t_shared) ml_buf_put(&tcol, c->alloc_tdesc.p, c->alloc_tdesc.len);
    else ml_col_i64(c->bl, &tcol, v->cat_t, v->ncat_t, 1);
    size_t cap;
    int64_t *val = ml_scratch_take((v->ncat_t ? v->ncat_t : 1) * sizeof *val, &cap);
    jw *w = c->w;
    for (size_t k = 0; k < v->bands.len; k++) {
        const ml_mv_band *b = &v->bands.v[k];
        jw_obj(w);
        jw_key(w, "cat"), jw_i64(w, b->cat);
        jw_key(w, "curve"), jw_obj(w);
        jw_key(w, "kind"), jw_str(w, "allocated");
        jw_key(w, "group"), jw_str(w, "category");
        jw_key(w, "label"), jw_text(w, b->label);
        jw_key(w, "n"), jw_i64(w, (int64_t)v->ncat_t);
        jw_key(w, "max"), jw_i64_js(w, b->max);
        jw_key(w, "tmax"), jw_i64_js(w, b->tmax);
        ml_buf_put(col_at(c, "t"), tcol.p, tcol.len);
        ml_col_i64(c->bl, col_at(c, "v"), ml_memview_band_column(v, k, val), v->ncat_t, 1);
        jw_end(w);
        jw_end(w);
    }
    ml_scratch_give(val, cap, v->ncat_t * sizeof *val);
    ml_buf_free(&tcol);
}

/* ---- one device -------------------------------------------------------- */

/* Writes device dev's view; keep: return it whole, else what has been
 * written is freed as it goes (NULL returned). */
static ml_memview *put_device(rank_ctx *c, uint16_t dev, bool keep)
{
    const ml_profile *p = c->p;
    const ml_device *d = &p->devices.v[dev];
    ml_mv_opts o = { .max_allocs = c->max_allocs, .insight_names = insight_names(p), .calls = c->calls };
    ml_memview *v = ml_memview_build(p, dev, c->origin, &o, &c->str);

    jw *w = c->w;
    jw_obj(w);
    jw_key(w, "id"), jw_text(w, d->id);
    jw_key(w, "name"), jw_text(w, d->name ? ml_s(p, d->name) : "");
    jw_key(w, "total"), jw_i64_js(w, d->total_memory);
    jw_key(w, "t0"), jw_i64_js(w, rel(c, v->t0));
    jw_key(w, "t1"), jw_i64_js(w, rel(c, v->t1));

    /* Curves: overall, per component / stream, then the trace's allocations. */
    jw_key(w, "curves"), jw_arr(w);
    c->alloc_tdesc.len = 0;
    for (size_t k = 0; k < v->curves.len; k++) {
        put_curve(c, &v->curves.v[k], (int)k == v->alloc_curve);
        if (!keep) ml_memview_release_curve(v, &v->curves.v[k]);
    }
    jw_end(w);
    jw_key(w, "peak"), ml_report_put_peak(v, w);

    /* A trace without addresses: its memory events by top-level operator,
     * and their nets until the peak (which add up to the replayed curve there). */
    if (ml_unmatched_applies(p, dev)) {
        ml_unmatched um;
        ml_unmatched_by_op(p, dev, v->peak_found ? v->peak_t : INT64_MAX, &um);
        jw_key(w, "unmatched"), jw_obj(w);
        jw_key(w, "why");
        jw_str(w, "the trace's memory events carry no addresses (PyTorch before 1.10): "
                  "a free cannot be told from which allocation it frees");
        jw_key(w, "allocs"), jw_i64(w, um.allocs);
        jw_key(w, "frees"), jw_i64(w, um.frees);
        jw_key(w, "by_op"), jw_arr(w);
        for (size_t k = 0; k < um.n; k++) {
            const ml_unmatched_row *r = &um.rows[k];
            jw_arr(w);
            jw_text(w, r->op ? ml_s(p, r->op) : ML_UNMATCHED_NO_OP);
            jw_i64(w, r->allocs), jw_i64(w, r->alloc_bytes), jw_i64(w, r->frees), jw_i64(w, r->free_bytes);
            jw_i64(w, r->net_at);
            jw_end(w);
        }
        jw_end(w);
        jw_end(w);
        ml_unmatched_free(&um);
    }

    /* Per-operator statistics over all allocations (not only the drawn ones). */
    jw_key(w, "ops"), ml_report_put_ops(v, w);

    size_t ngroups = v->group_label.len;
    jw_key(w, "allocs"), jw_obj(w);
    jw_key(w, "n"), jw_i64(w, (int64_t)v->n);
    jw_key(w, "total"), jw_i64(w, (int64_t)v->total);
    jw_key(w, "summarised"), jw_i64(w, (int64_t)v->summarised);
    jw_key(w, "summarised_bytes"), jw_i64_js(w, v->summarised_bytes);
    /* which columns the device's allocations fill (the table leaves out the others) */
    jw_key(w, "has"), jw_obj(w);
    jw_key(w, "op"), jw_bool(w, v->has_op);
    jw_key(w, "stream"), jw_bool(w, v->has_stream);
    jw_key(w, "addr"), jw_bool(w, v->has_addr);
    jw_end(w);
    jw_key(w, "group_by"), jw_str(w, v->by_frame ? "frame" : "op");
    jw_key(w, "groups"), jw_arr(w);
    for (size_t g = 0; g < ngroups; g++) jw_text(w, v->group_label.v[g]);
    jw_end(w);
    /* each group's allocations and bytes (all of them, embedded or not): the lane order */
    jw_key(w, "group_bytes"), jw_arr(w);
    for (size_t g = 0; g < ngroups; g++) jw_i64_js(w, v->gs[g].bytes);
    jw_end(w);
    jw_key(w, "group_count"), jw_arr(w);
    for (size_t g = 0; g < ngroups; g++) jw_i64(w, v->gs[g].allocs);
    jw_end(w);
    /* the columns, as memview.h's table declares them (an optional one only when the view has it) */
#define PUT_COL(name, type, enc, delta, opt, api)                                    \
    if (v->name) {                                                                  \
        col_##enc(c->bl, col_at(c, #name), v->name, v->n, delta);                   \
        if (!keep) { ml_scratch_give(v->name, v->n * sizeof(type), v->n * sizeof(type)); v->name = NULL; } \
    }
    ML_MV_COLUMNS(PUT_COL)
#undef PUT_COL
    jw_end(w);

    /* Curves per group (largest at the peak first), for "group by op". */
    jw_key(w, "op_curves"), jw_arr(w);
    for (size_t k = 0; k < v->op_curves.len; k++) {
        put_curve(c, &v->op_curves.v[k], false);
        if (!keep) ml_memview_release_curve(v, &v->op_curves.v[k]);
    }
    jw_end(w);
    jw_key(w, "category_curves"), jw_arr(w);
    put_category_curves(c, v);
    jw_end(w);
    if (ml_report_is_static(p)) ml_report_static(p, dev, w);
    if (ml_report_has_segments(p)) ml_report_segments(p, dev, c->origin, c->max_history, w);
    jw_end(w);
    if (keep) return v;
    ml_memview_free(v);
    return NULL;
}

/* ---- one rank ---------------------------------------------------------- */

void ml_report_rank_who(const ml_profile *p, jw *w)
{
    jw_key(w, "rank"), jw_i64(w, p->rank);
    jw_key(w, "world_size"), jw_i64(w, p->world_size);
    jw_key(w, "path"), jw_text(w, p->path);
    jw_key(w, "format"), jw_text(w, p->format);
    ml_report_caps_json(w, &p->caps, ml_devkind_of_profile(p));
    jw_key(w, "host"), jw_text(w, p->host ? ml_s(p, p->host) : "");
    jw_key(w, "time"), jw_str(w, p->time_is_event_order ? "order" : p->time_is_absolute ? "abs" : "rel");
}

void ml_report_rank_head(const ml_profile *p, jw *w)
{
    jw_obj(w);
    ml_report_rank_who(p, w);
    jw_key(w, "notes"), jw_arr(w);
    for (size_t i = 0; i < p->notes.len; i++) jw_text(w, ml_s(p, p->notes.v[i]));
    jw_end(w);
    /* The time side (Overview, Operators ... views): whether the rank has one, else why not. */
    const char *why = ml_perf_unavailable(p);
    jw_key(w, "perf"), jw_bool(w, !why);
    jw_key(w, "perfWhy"), jw_str(w, why);
}

void ml_report_rank_keep(const ml_profile *p, int64_t origin, size_t max_allocs, size_t max_history, ml_buf *m,
                         ml_blobs *bl, ml_mv_strings *strings, ml_memview ***views, size_t *nviews)
{
    bool keep = views != NULL;
    if (keep) {
        *views = ml_calloc(p->devices.len + 1, sizeof **views);
        *nviews = 0;
    }
    /* The rank's large arrays (the devices' views, their columns, the
     * slices') from one scratch pool (scratch.h): what one frees is the
     * next one's pages, in already, not fresh ones. */
    ml_bufpool pool = {0};
    ml_scratch_open(&pool);
    ml_blobs_recycle(bl, true); /* (and the encoded columns' pages) */
    jw w;
    jw_init_buf(&w, m, false);
    rank_ctx c = { .p = p, .origin = origin, .bl = bl, .meta = m, .w = &w, .max_allocs = max_allocs,
                   .max_history = max_history };
    ml_mv_strings_init(&c.str, p);
    size_t nstr = c.str.nstr;
    c.calls = ml_calloc(nstr ? nstr : 1, sizeof *c.calls);
    for (size_t i = 0; i < p->ops.name.len; i++)
        if (p->ops.kind.v[i] == ML_OP_CPU && p->ops.name.v[i] < nstr) c.calls[p->ops.name.v[i]]++;

    ml_report_rank_head(p, &w);
    jw_key(&w, "devices"), jw_arr(&w);
    for (size_t d = 0; d < p->devices.len; d++) {
        if (!ml_memview_device_shown(p, (uint16_t)d)) continue;
        ml_memview *v = put_device(&c, (uint16_t)d, keep);
        if (keep) (*views)[(*nviews)++] = v;
    }
    jw_end(&w);
    ml_phase("report: devices (memory side)");

    /* Stacks and frames (the whole pool of the rank: they are deduplicated). */
    size_t nst = p->stack_start.len;
    uint32_t *u = ml_malloc((p->frames.len + nst + p->stack_frames.len + 1) * sizeof *u);
    for (size_t i = 0; i < nst; i++) u[i] = p->stack_start.v[i];
    ml_col_u32(bl, col_at(&c, "stack_start"), u, nst);
    ml_col_u32(bl, col_at(&c, "stack_frames"), p->stack_frames.v, p->stack_frames.len);
    for (size_t i = 0; i < p->frames.len; i++) u[i] = ml_mv_str(&c.str, p->frames.v[i].name);
    ml_col_u32(bl, col_at(&c, "frame_name"), u, p->frames.len);
    for (size_t i = 0; i < p->frames.len; i++) u[i] = ml_mv_str(&c.str, p->frames.v[i].file);
    ml_col_u32(bl, col_at(&c, "frame_file"), u, p->frames.len);
    int64_t *ln = ml_malloc((p->frames.len + 1) * sizeof *ln);
    for (size_t i = 0; i < p->frames.len; i++) ln[i] = p->frames.v[i].line;
    ml_col_i64(bl, col_at(&c, "frame_line"), ln, p->frames.len, 0);
    free(ln);
    free(u);

    /* Memory categories: names and colours by code, reasons by code (categories.h). */
    jw_key(&w, "categories"), jw_arr(&w);
    for (int k = 0; k < ML_CAT__COUNT; k++) {
        jw_obj(&w);
        jw_key(&w, "name"), jw_text(&w, ml_category_name(k));
        jw_key(&w, "color"), jw_text(&w, ml_category_color(k));
        jw_end(&w);
    }
    jw_end(&w);
    jw_key(&w, "category_order"), jw_arr(&w);
    for (int j = 0; j < ML_CAT__COUNT; j++) jw_i64(&w, ml_category_order[j]);
    jw_end(&w);
    jw_key(&w, "reasons"), jw_arr(&w);
    for (int k = 0; k < ML_REASON__COUNT; k++) jw_text(&w, ml_category_reason_text(k));
    jw_end(&w);
    ml_phase("report: stacks, frames");
    ml_report_trace(p, origin, ML_REPORT_MAX_SLICES, &w, bl); /* the Trace view's slices (report_trace.h) */
    ml_phase("report: trace slices");
    jw_key(&w, "strings"), jw_arr(&w);
    for (size_t i = 0; i < c.str.ids.len; i++) jw_text(&w, ml_s(p, c.str.ids.v[i]));
    jw_end(&w);
    jw_end(&w);
    if (keep && strings) *strings = c.str;
    else ml_mv_strings_free(&c.str);
    ml_buf_free(&c.alloc_tdesc);
    free(c.calls);
    ml_blobs_recycle(bl, false);
    ml_scratch_close();
}

void ml_report_rank(const ml_profile *p, int64_t origin, size_t max_allocs, size_t max_history, ml_buf *m, ml_blobs *bl)
{
    ml_report_rank_keep(p, origin, max_allocs, max_history, m, bl, NULL, NULL, NULL);
}

int ml_report_data(const ml_profiles *ps, const ml_report_opts *o, ml_buf *m, ml_blobs *bl, ml_err *e)
{
    if (!ps->items.len) return ml_fail(e, "report: no profile to show");
    int64_t origin = INT64_MAX;
    for (size_t r = 0; r < ps->items.len; r++) {
        int64_t t = ml_profile_first_time(ps->items.v[r]);
        if (t < origin) origin = t;
    }
    if (origin == INT64_MAX) origin = 0;
    size_t max_allocs = o && o->max_allocs ? o->max_allocs : ML_REPORT_MAX_ALLOCS;
    if (o && o->zlevel) bl->level = o->zlevel;

    jw w;
    jw_init_buf(&w, m, false);
    ml_report_meta_open(&w, origin, o ? (const char *const *)o->inputs : NULL, o ? o->n_inputs : 0, ps->skipped.v,
                        ps->skipped.len);
    /* Blobs deflate on a second thread; a caller that started that itself
     * (ml_report_write) waits for it when it needs the page. */
    bool mine = !bl->q;
    if (mine) ml_blobs_async(bl);
    for (size_t r = 0; r < ps->items.len; r++) {
        jw_value_begin(&w); /* the rank's object, by its own writer */
        ml_report_rank(ps->items.v[r], origin, max_allocs, o ? o->max_history : 0, m, bl);
    }
    jw_end(&w);
    jw_end(&w);
    ml_blobs_columns_done(bl);
    if (mine) ml_blobs_finish(bl, m);
    return 0;
}

static bool perf_json(const ml_profile *p, bool own, const ml_distributed *dist, int top, ml_buf *out)
{
    if (top <= 0) top = ML_PERF_TOP_DEFAULT;
    if (ml_perf_unavailable(p)) return false;
    /* written straight into out, its '<' escaped there after (no copy of it made and put) */
    size_t at = out->len;
    jw w;
    jw_init_buf(&w, out, false);
    w.script_safe = false; /* every '<' escaped below instead */
    if (own) ml_perf_json_rank(&w, p, top);
    else ml_perf_json_rank_with(&w, p, top, dist);
    bool some = out->len - at >= 2 && strncmp(out->p + at, "null", 4);
    if (some) jw_script_safe_from(out, at);
    else if (out->p) out->p[out->len = at] = 0;
    return some;
}

bool ml_report_perf_json(const ml_profile *p, ml_buf *out) { return perf_json(p, true, NULL, 0, out); }

bool ml_report_perf_json_with(const ml_profile *p, const ml_distributed *dist, int top, ml_buf *out)
{
    return perf_json(p, false, dist, top, out);
}
